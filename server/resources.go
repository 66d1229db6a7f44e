package server

// ResourcesChanged returns a channel that is closed when the served
// resources next change (AddResource, RemoveResource), so that a
// controller acting on every resource (a garbage collector) learns of
// them without polling: it takes the channel, reads Resources, acts, then
// waits on the channel.
func (s *Server) ResourcesChanged() <-chan struct{} { return s.reg.Load().replaced }

// publishLocked makes reg the served registry and wakes the waiters of
// ResourcesChanged. s.regMu must be held.
func (s *Server) publishLocked(reg *registry) {
	close(s.reg.Swap(reg).replaced)
}
