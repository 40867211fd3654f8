package cachestore_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/cachestore"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/testenv"
)

func TestReadThroughAndWrites(t *testing.T) {
	tbl := newTable(t)
	eachBackend(t, func(t *testing.T, be cache.Backend) {
		eachMode(t, func(t *testing.T, addrs []string, cluster bool) {
			ctx := context.Background()
			c := newCache(t, testenv.UniqueName("tk"), addrs, cluster, func(o *cache.Options) { o.Backend = be })
			var n counted
			s := newStore(t, tbl, c, n.hook)
			p := post(testenv.UniqueName("p"))
			k := key(t, p)

			steps := []struct {
				name      string
				do        func() error
				wantTitle string // "" means not found
				wantLoads int64  // loads of the Get after the step
			}{
				{"miss loads and caches not found", nil, "", 1},
				{"negative hit", nil, "", 0},
				{"create replaces the negative entry", func() error { return s.Create(ctx, &p) }, "t", 0},
				{"hit", nil, "t", 0},
				{"update writes through", func() error {
					_, err := s.Update(ctx, k, entity.Changes[Post]{entity.Set(benchentTitle, "t2")}, entity.IfVersion(1))
					return err
				}, "t2", 0},
				{"put writes through", func() error {
					q := p
					q.Title = "t3"
					return s.Put(ctx, &q, entity.IfVersion(2))
				}, "t3", 0},
				{"delete leaves a tombstone", func() error { return s.Delete(ctx, k, entity.IfVersion(3)) }, "", 0},
				{"create after delete", func() error { q := post(p.ID); q.Title = "again"; return s.Create(ctx, &q) }, "again", 0},
			}
			for _, st := range steps {
				if st.do != nil {
					if err := st.do(); err != nil {
						t.Fatalf("%s: %v", st.name, err)
					}
				}
				before := n.loads.Load()
				got, err := s.Get(ctx, k)
				loads := n.loads.Load() - before
				switch {
				case st.wantTitle == "" && !errors.Is(err, entity.ErrNotFound):
					t.Fatalf("%s: Get = %+v, %v; want ErrNotFound", st.name, got, err)
				case st.wantTitle != "" && (err != nil || got.Title != st.wantTitle):
					t.Fatalf("%s: Get = %q, %v; want %q", st.name, got.Title, err, st.wantTitle)
				case loads != st.wantLoads:
					t.Fatalf("%s: %d loads, want %d", st.name, loads, st.wantLoads)
				}
			}
		})
	})
}

func TestSingleflight(t *testing.T) {
	tbl := newTable(t)
	eachMode(t, func(t *testing.T, addrs []string, cluster bool) {
		ctx := context.Background()
		c := newCache(t, testenv.UniqueName("tk"), addrs, cluster)
		var n counted
		s := newStore(t, tbl, c, n.hook)
		p := post(testenv.UniqueName("p"))
		if err := s.Entity().Create(ctx, &p); err != nil {
			t.Fatal(err)
		}
		n.delay.Store(int64(100 * time.Millisecond))
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make(chan error, 32)
		for i := 0; i < 32; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if got, err := s.Get(ctx, key(t, p)); err != nil || got.ID != p.ID {
					errs <- err
				}
			}()
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		// The first flight seals before it reads the table; callers that
		// arrive after that form at most one more flight.
		if l := n.loads.Load(); l < 1 || l > 2 {
			t.Fatalf("%d loads for 32 concurrent misses, want 1 or 2", l)
		}
	})
}

// TestInFlightLoadCannotResurrect: a load reads the item, a delete
// commits and returns, then the load offers its (older) result: it is
// not cached, and reads after the delete see "not found".
func TestInFlightLoadCannotResurrect(t *testing.T) {
	tbl := newTable(t)
	eachMode(t, func(t *testing.T, addrs []string, cluster bool) {
		ctx := context.Background()
		c := newCache(t, testenv.UniqueName("tk"), addrs, cluster)
		loaded, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		s := newStore(t, tbl, c, func(o *cachestore.Options) {
			o.LoadHook = func(context.Context, entity.Key) {
				once.Do(func() { close(loaded); <-release })
			}
		})
		p := post(testenv.UniqueName("p"))
		if err := s.Entity().Create(ctx, &p); err != nil {
			t.Fatal(err)
		}
		k := key(t, p)
		done := make(chan error, 1)
		go func() { _, err := s.Get(ctx, k); done <- err }()
		<-loaded                  // the load has read version 1
		s2 := newStore(t, tbl, c) // a second store on the same cache: another "process"
		if err := s2.Delete(ctx, k, entity.IfVersion(1)); err != nil {
			t.Fatal(err)
		}
		close(release)
		if err := <-done; err != nil {
			t.Fatal(err) // the early reader gets what it read: it began before the delete
		}
		if _, err := s2.Get(ctx, k); !errors.Is(err, entity.ErrNotFound) {
			t.Fatalf("after delete: %v, want ErrNotFound", err)
		}
		if _, err := s.Get(ctx, k); !errors.Is(err, entity.ErrNotFound) {
			t.Fatalf("after delete, first store: %v, want ErrNotFound", err)
		}
	})
}

// TestOlderStateNeverReplacesNewer runs the cache steps of two updates in
// the wrong order (the step of version 3 first): the cache never holds
// version 2 afterwards.
func TestOlderStateNeverReplacesNewer(t *testing.T) {
	tbl := newTable(t)
	eachMode(t, func(t *testing.T, addrs []string, cluster bool) {
		ctx := context.Background()
		c := newCache(t, testenv.UniqueName("tk"), addrs, cluster)
		s := newStore(t, tbl, c)
		p := post(testenv.UniqueName("p"))
		if err := s.Create(ctx, &p); err != nil {
			t.Fatal(err)
		}
		k := key(t, p)
		if _, err := s.Get(ctx, k); err != nil {
			t.Fatal(err)
		}
		v2, v3 := p, p
		v2.Version, v2.Title = 2, "v2"
		v3.Version, v3.Title = 3, "v3"
		for _, tc := range []struct {
			name string
			late Post
		}{{"late v2 after v3", v2}, {"late v1 after v3", p}} {
			t.Run(tc.name, func(t *testing.T) {
				if err := cachestore.StepForTest(ctx, s, &v3, "u"); err != nil {
					t.Fatal(err)
				}
				if err := cachestore.StepForTest(ctx, s, &tc.late, "u"); err != nil {
					t.Fatal(err)
				}
				raw, err := c.Get(ctx, s.CacheKey(k))
				if err == nil && raw[:2] != "L3" {
					t.Fatalf("cached %q after a late older step", raw[:2])
				}
			})
		}
	})
}

// TestValkeyDownDuringWrite: the table write stays, the call reports
// cache.ErrStale, and this process reads the table until the server is back.
func TestValkeyDownDuringWrite(t *testing.T) {
	tbl := newTable(t)
	ctx := context.Background()
	r := testenv.StartRedis(t)
	c := newCache(t, testenv.UniqueName("tk"), []string{r.Addr}, false, func(o *cache.Options) {
		o.RequestTimeout = 300 * time.Millisecond
		o.BreakerCooldown = 100 * time.Millisecond
	})
	var n counted
	s := newStore(t, tbl, c, n.hook)
	p := post(testenv.UniqueName("p"))
	if err := s.Create(ctx, &p); err != nil {
		t.Fatal(err)
	}
	k := key(t, p)
	if _, err := s.Get(ctx, k); err != nil {
		t.Fatal(err)
	}
	r.Stop()
	_, err := s.Update(ctx, k, entity.Changes[Post]{entity.Set(benchentTitle, "down")}, entity.IfVersion(1))
	if !errors.Is(err, cache.ErrStale) {
		t.Fatalf("Update with the server down: %v, want ErrStale", err)
	}
	if got, err := s.Entity().Get(ctx, k, entity.ConsistentRead); err != nil || got.Title != "down" {
		t.Fatalf("table: %+v, %v", got, err)
	}
	if got, err := s.Get(ctx, k); err != nil || got.Title != "down" {
		t.Fatalf("read while down: %q, %v", got.Title, err)
	}
	r.Start()
	time.Sleep(200 * time.Millisecond) // breaker cooldown
	for i := 0; i < 2; i++ {
		if got, err := s.Get(ctx, k); err != nil || got.Title != "down" {
			t.Fatalf("read after restart: %q, %v", got.Title, err)
		}
	}
}
