package refimpl

// The parts of a cpu-fast path that BreakFastPath breaks.
const (
	// BreakSums breaks the passes that sum a row's terms.
	BreakSums = "sums"
	// BreakConversion breaks the conversion of uint8 and int16 rows to
	// float32.
	BreakConversion = "conversion"
)

// BreakParts are the parts BreakFastPath breaks.
var BreakParts = []string{BreakSums, BreakConversion}

// BreakFastPath puts a broken loop in place of one part (BreakSums or
// BreakConversion) of path p's until the returned function restores it,
// so a test can show that a check of that path fails. The broken portable
// loops leave the last value of every row as it was; the broken vector
// loops leave the values after the last multiple of eight (sixteen for
// the 512-bit one: those their narrower loops handle) as they were: the remainder bugs such loops are prone to.
// Other paths and parts are left alone.
func BreakFastPath(p FastPath, part string) (restore func()) {
	switch {
	case p == FastPortable && part == BreakSums:
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
	case p == FastVector512 && part == BreakSums:
		saved := vectorSum512
		vectorSum512 = func(dst []float32, t []term, set bool) {
			saved(dst[:len(dst)&^15], t, set)
		}
		return func() { vectorSum512 = saved }
	case p == FastVector512 && part == BreakConversion:
		saved := vector512Convert
		vector512Convert = brokenVectorConverter(saved)
		return func() { vector512Convert = saved }
	case p == FastVector && part == BreakSums:
		saved := vectorSum
		vectorSum = func(dst []float32, t []term, set bool) {
			saved(dst[:len(dst)&^7], t, set)
		}
		return func() { vectorSum = saved }
	case p == FastPortable && part == BreakConversion:
		saved := portableConvert
		portableConvert = rowConverter{
			u8: func(dst []float32, src []uint8) {
				n := max(len(dst)-1, 0)
				saved.u8(dst[:n], src[:n])
			},
			i16: func(dst []float32, src []int16) {
				n := max(len(dst)-1, 0)
				saved.i16(dst[:n], src[:n])
			},
		}
		return func() { portableConvert = saved }
	case p == FastVector && part == BreakConversion:
		saved := vectorConvert
		vectorConvert = brokenVectorConverter(saved)
		return func() { vectorConvert = saved }
	}
	return func() {}
}

// brokenVectorConverter is c leaving the values after the last multiple
// of eight unconverted, as a vector loop without its Go tail would.
func brokenVectorConverter(c rowConverter) rowConverter {
	return rowConverter{
		u8: func(dst []float32, src []uint8) {
			n := len(dst) &^ 7
			c.u8(dst[:n], src[:n])
		},
		i16: func(dst []float32, src []int16) {
			n := len(dst) &^ 7
			c.i16(dst[:n], src[:n])
		},
	}
}
