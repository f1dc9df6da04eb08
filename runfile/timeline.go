package runfile

import (
	"fmt"
	"strconv"
	"strings"
)

const timelinePrefix = "# timeline "

// Span is one phase of one chunk in a timeline: the case, the logical
// device and its GPU, the stream, the chunk, the phase (h2d, kernel or
// d2h) and its start and end in microseconds from the device's first
// event.
type Span struct {
	Case                    string
	Dev, GPU, Stream, Chunk int
	Phase                   string
	StartUS, EndUS          float64
}

// Line is the timeline line of s: "# timeline ", the case, then dev,
// gpu, stream, chunk, phase, start-us and end-us as key=value fields, the
// times to a tenth of a microsecond.
func (s Span) Line() string {
	return fmt.Sprintf("%s%s dev=%d gpu=%d stream=%d chunk=%d phase=%s start-us=%.1f end-us=%.1f",
		timelinePrefix, s.Case, s.Dev, s.GPU, s.Stream, s.Chunk, s.Phase, s.StartUS, s.EndUS)
}

// ParseSpan reads a timeline line (Span.Line): ok is false for any other
// line, and a timeline line that does not parse is an error naming the
// field.
func ParseSpan(line string) (Span, bool, error) {
	rest, ok := strings.CutPrefix(line, timelinePrefix)
	if !ok {
		return Span{}, false, nil
	}
	f := strings.Fields(rest)
	if len(f) != 8 {
		return Span{}, false, fmt.Errorf("timeline line %q: want the case and 7 key=value fields", line)
	}
	s := Span{Case: f[0]}
	for _, kv := range f[1:] {
		k, v, _ := strings.Cut(kv, "=")
		var err error
		switch k {
		case "dev":
			s.Dev, err = strconv.Atoi(v)
		case "gpu":
			s.GPU, err = strconv.Atoi(v)
		case "stream":
			s.Stream, err = strconv.Atoi(v)
		case "chunk":
			s.Chunk, err = strconv.Atoi(v)
		case "phase":
			s.Phase = v
		case "start-us":
			s.StartUS, err = strconv.ParseFloat(v, 64)
		case "end-us":
			s.EndUS, err = strconv.ParseFloat(v, 64)
		default:
			err = fmt.Errorf("unknown key")
		}
		if err != nil {
			return Span{}, false, fmt.Errorf("timeline line %q: field %q: %v", line, kv, err)
		}
	}
	if s.EndUS < s.StartUS {
		return Span{}, false, fmt.Errorf("timeline line %q: ends before it starts", line)
	}
	return s, true, nil
}
