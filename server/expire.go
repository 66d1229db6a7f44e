package server

// ExpireWatches ends every open watch with an ERROR event of 410 Gone
// ("too old resource version"), as a watch ends whose resourceVersion
// the history no longer holds. Clients then resume from their last
// resourceVersion; with Compact first, that resume gets 410 too and they
// relist, as a reflector does. Tests use it to exercise that path.
func (s *Server) ExpireWatches() {
	for _, r := range s.reg.Load().resources {
		r.bcast.Expire()
	}
}
