package results

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/convbench/convbench/runfile"
)

// syntheticMultiGPU is a stored 004-multigpu run on two GPUs: the one-GPU
// and two-GPU lines of one case, and a timeline of two chunks.
func syntheticMultiGPU() string {
	var sb strings.Builder
	sb.WriteString("# commit abc\ngpu: Test GPU\ngpu-count: 2\ngpu-h2d-gbps: 25.0\ngpu-d2h-gbps: 26.0\n")
	name := "BenchmarkConv/variant=gpu-slab-gpu-regtile/size=8192x8192/filter=gauss21/k=21/block=default/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=total/mem=pinned/opts=default/tune=streams=4/gpus=%s"
	for i := range 3 {
		fmt.Fprintf(&sb, name+" 1 %d ns/op %d total-ns/op 80 %%copy-bound\n", "0", 100000000+i, 100000000+i)
		fmt.Fprintf(&sb, name+" 1 %d ns/op %d total-ns/op 0.9 scaling-eff 90 %%copy-bound\n", "0,1", 55000000+i, 55000000+i)
	}
	big := "BenchmarkConv/variant=gpu-slab-gpu-regtile/size=32768x32768/filter=%s/k=%d/block=default/border=zero/type=%s/ch=1/layout=interleaved/cache=hot/timing=%s/mem=%s/opts=default/tune=%s/gpus=0,1"
	for i := range 3 {
		fmt.Fprintf(&sb, big+" 1 %d ns/op %d gpu-ns/op 0.95 scaling-eff\n", "gauss21", 21, "f32", "kernel", "none", "default", 10000000+i, 10000000+i)
		// 2^30 bytes in, 2^32 out (float32) at 26 GB/s over 2 links: 82.6 ms.
		fmt.Fprintf(&sb, big+" 1 %d ns/op %d total-ns/op\n", "gauss5", 5, "u8", "total", "pinned", "streams=4", 100000000+i, 100000000+i)
	}
	c := "variant=gpu-slab-gpu-regtile/size=8192x8192/filter=gauss21/k=21/block=default/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=total/mem=pinned/opts=default/tune=streams=4/gpus=0,1"
	for ch := range 2 {
		for i, ph := range []string{"h2d", "kernel", "d2h"} {
			fmt.Fprintf(&sb, "# timeline %s dev=%d gpu=%d stream=%d chunk=%d phase=%s start-us=%d end-us=%d\n", c, ch, ch, 0, ch, ph, 100*i, 100*i+90)
		}
	}
	return sb.String()
}

func TestMultiGPUSection(t *testing.T) {
	r, err := ReadRun(strings.NewReader(syntheticMultiGPU()), "data/test-gpu/004-multigpu.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Timeline) != 6 || r.Timeline[4] != (runfile.Span{Case: r.Timeline[0].Case, Dev: 1, GPU: 1, Stream: 0, Chunk: 1, Phase: "kernel", StartUS: 100, EndUS: 190}) {
		t.Fatalf("timeline %+v", r.Timeline)
	}
	s := sectionMultiGPU(GroupHosts([]*Run{r}))
	if len(s.Tables) != 2 || len(s.Timelines) != 1 {
		t.Fatalf("%d tables, %d timelines", len(s.Tables), len(s.Timelines))
	}
	var md bytes.Buffer
	s.Tables[0].RenderMarkdown(&md)
	// The bound is computed from the run's bandwidths, not read from the
	// lines' %copy-bound: 2^31 bytes each way at 25 and 26 GB/s, the
	// directions overlapped, is 10.7 ms on one link and 5.37 ms on two.
	for _, want := range []string{"gpus=0,1", "total, pinned, 4 streams", "100 ±", "55.0 ±", "0.9", "| 10.7 |", "| 9.76 |", "gpu-h2d-gbps 25.0"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("scaling table lacks %q:\n%s", want, md.String())
		}
	}
	md.Reset()
	s.Tables[1].RenderMarkdown(&md)
	for _, want := range []string{"| resident scaling efficiency | 32768x32768 | f32 | gauss21 | 0.950 | yes |", "| one-shot % of host-copy bound (streams=4) | 32768x32768 | u8 | gauss5 | 82.6% | no |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("goal table lacks %q:\n%s", want, md.String())
		}
	}
	var svg bytes.Buffer
	if err := s.Timelines[0].WriteSVG(&svg); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "dev 1 (gpu 1) stream 0", "kernel"} {
		if !strings.Contains(svg.String(), want) {
			t.Errorf("timeline SVG lacks %q", want)
		}
	}
}

// A total time below the host-copy bound is named in the scaling table's
// caption: the measured bidirectional rate, not the pipeline, fell short.
func TestMultiGPUOverBound(t *testing.T) {
	tests := []struct {
		oneGPU string // the gpus=0 line's ns/op
		want   string // in the caption, or "" for no such sentence
	}{
		{"100000000", ""},
		// 2^31 bytes each way at 25 and 26 GB/s: 10.7 ms; 9 ms is 119%.
		{"9000000", "Above 100% (8192x8192 f32 gauss21 gpus=0 streams=4: 119."},
	}
	for _, tt := range tests {
		oneGPU := regexp.MustCompile(`gpus=0 1 10000000\d ns/op 10000000\d total-ns/op`)
		text := oneGPU.ReplaceAllString(syntheticMultiGPU(), "gpus=0 1 "+tt.oneGPU+" ns/op "+tt.oneGPU+" total-ns/op")
		r, err := ReadRun(strings.NewReader(text), "data/test-gpu/004-multigpu.txt")
		if err != nil {
			t.Fatal(err)
		}
		s := sectionMultiGPU(GroupHosts([]*Run{r}))
		if len(s.Tables) == 0 {
			t.Fatal("no scaling table")
		}
		c := s.Tables[0].Caption
		if tt.want == "" && strings.Contains(c, "Above 100%") || tt.want != "" && !strings.Contains(c, tt.want) {
			t.Errorf("gpus=0 at %s ns: caption %q, want %q", tt.oneGPU, c, tt.want)
		}
	}
}
