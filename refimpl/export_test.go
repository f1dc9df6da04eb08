package refimpl

// BreakFastPath puts a broken loop in place of path p's until the
// returned function restores it, so a test can show that a check of that
// path fails. The broken portable loops leave the last value of every
// row as it was; the broken vector loop leaves the values after the last
// multiple of eight (those its Go tail sums) as they were: the
// remainder bugs such loops are prone to. Other paths are left alone.
func BreakFastPath(p FastPath) (restore func()) {
	switch p {
	case FastPortable:
		saved := passes
		for k, f := range saved {
			if f == nil {
				continue
			}
			passes[k] = func(dst []float32, t []term, set bool) {
				f(dst[:max(len(dst)-1, 0)], t, set)
			}
		}
		return func() { passes = saved }
	case FastVector:
		saved := vectorSum
		vectorSum = func(dst []float32, t []term, set bool) {
			saved(dst[:len(dst)&^7], t, set)
		}
		return func() { vectorSum = saved }
	}
	return func() {}
}
