package cache_test

import (
	"testing"

	"github.com/tablekit/tablekit/internal/testenv"
)

// stoppableRedis starts a private Redis owned by the test, which it may
// stop and restart: a standalone server, or a one-node cluster whose
// restart waits only for PING (its cluster state may still be "fail" for
// about two seconds). Neither touches the shared servers.
func stoppableRedis(t *testing.T, cluster bool) (addr string, stop, start func()) {
	t.Helper()
	if cluster {
		p := testenv.StartRedisCluster(t)
		return p.Addr, p.Stop, p.StartNoWait
	}
	p := testenv.StartRedis(t)
	return p.Addr, p.Stop, p.Start
}
