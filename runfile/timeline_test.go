package runfile

import "testing"

// A span's line reads back as the span.
func TestSpanLine(t *testing.T) {
	s := Span{Case: "Conv/variant=gpu-slab2-gpu-tiled", Dev: 1, GPU: 1, Stream: 2, Chunk: 3, Phase: "kernel", StartUS: 100.5, EndUS: 190}
	want := "# timeline Conv/variant=gpu-slab2-gpu-tiled dev=1 gpu=1 stream=2 chunk=3 phase=kernel start-us=100.5 end-us=190.0"
	if got := s.Line(); got != want {
		t.Errorf("Line() = %q, want %q", got, want)
	}
	got, ok, err := ParseSpan(want)
	if !ok || err != nil || got != s {
		t.Errorf("ParseSpan(%q) = %+v, %v, %v", want, got, ok, err)
	}
}

func TestParseSpanErrors(t *testing.T) {
	for _, line := range []string{
		"# timeline c dev=0 gpu=0 stream=0 chunk=0 phase=h2d start-us=5",
		"# timeline c dev=x gpu=0 stream=0 chunk=0 phase=h2d start-us=5 end-us=6",
		"# timeline c dev=0 gpu=0 stream=0 chunk=0 phase=h2d start-us=5 end-us=4",
		"# timeline c dev=0 gpu=0 stream=0 chunk=0 phase=h2d start-us=5 when=4",
	} {
		if _, _, err := ParseSpan(line); err == nil {
			t.Errorf("ParseSpan(%q) succeeded", line)
		}
	}
	if _, ok, err := ParseSpan("# no GPU"); ok || err != nil {
		t.Errorf("another comment line: %v, %v", ok, err)
	}
}
