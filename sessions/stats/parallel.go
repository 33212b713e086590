package stats

import (
	"runtime"
	"sync"
)

// forEach calls fn(0) … fn(n−1) on up to GOMAXPROCS goroutines and
// returns when all are done. fn must write only to its own index's
// results.
func forEach(n int, fn func(i int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
