// Package k8sbench measures Kubernetes' k8s.io/apimachinery/pkg/watch
// Broadcaster and apisem's watch.Broadcaster with the same harness in one
// binary, so that their ratio is not skewed by the noise of a shared
// machine. It is a separate module so that apisem itself never depends on
// Kubernetes:
//
//	cd watch/internal/k8sbench && go test -bench . -benchtime 2s
//
// The Kubernetes Broadcaster has no history, filters or bookmarks and, as
// configured here (WaitIfChannelFull), makes the writer wait for the
// slowest watcher; it is the lower bound of what the Kubernetes watch path
// costs, not the watch cache.
package k8sbench
