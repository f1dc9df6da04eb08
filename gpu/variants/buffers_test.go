package variants

import (
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
)

// TestPadRows pads a fake plan's 8-element input and output rows to
// several alignments: where the packed stride is not a multiple, In and
// Out are replaced by buffers of the wider stride (the old ones freed, so
// the plan still holds two), InStride, OutGeometry's stride and the byte counts say
// so, and Upload copies in 2-D; ReleaseInput then frees In once, and
// Close leaves no buffer, stream or event.
func TestPadRows(t *testing.T) {
	fd, plan := fakePlanner(t, func(*cudabind.Exec, cudabind.Stream) error { return nil })
	for _, tt := range []struct {
		align          int
		stride         int // InStride and OutGeometry's stride after padding
		inBytes, out   int64
		padded         bool
		uploadCopyCall string
	}{
		{align: 1, stride: 8, inBytes: 8 * 4 * 4, out: 8 * 4 * 4, uploadCopyCall: "cuMemcpyHtoD"},
		{align: 4, stride: 8, inBytes: 8 * 4 * 4, out: 8 * 4 * 4, uploadCopyCall: "cuMemcpyHtoD"},
		{align: 32, stride: 32, inBytes: 32 * 4 * 4, out: 32 * 4 * 4, padded: true, uploadCopyCall: "cuMemcpy2D"},
	} {
		p := fakeProblem(t)
		b := plan(p)
		in, out := b.In, b.Out
		if err := b.PadInputRows(tt.align); err != nil {
			t.Fatalf("align %d: PadInputRows: %v", tt.align, err)
		}
		if err := b.PadOutputRows(tt.align); err != nil {
			t.Fatalf("align %d: PadOutputRows: %v", tt.align, err)
		}
		if b.InStride() != tt.stride || b.OutGeometry().RowStride() != tt.stride || b.InBytes != tt.inBytes || b.OutBytes != tt.out {
			t.Errorf("align %d: strides %d, %d and bytes %d, %d; want %d and %d, %d",
				tt.align, b.InStride(), b.OutGeometry().RowStride(), b.InBytes, b.OutBytes, tt.stride, tt.inBytes, tt.out)
		}
		if replaced := b.In != in && b.Out != out; replaced != tt.padded {
			t.Errorf("align %d: buffers replaced %v, want %v", tt.align, replaced, tt.padded)
		}
		if n := fd.Live()["device buffers"]; n != 2 {
			t.Errorf("align %d: %d device buffers live, want 2", tt.align, n)
		}
		img, err := convolve.NewImage(p.Input)
		if err != nil {
			t.Fatal(err)
		}
		before := len(fd.Calls())
		if err := b.Upload(img); err != nil {
			t.Fatalf("align %d: Upload: %v", tt.align, err)
		}
		if calls := fd.Calls()[before:]; len(calls) != 1 || calls[0] != tt.uploadCopyCall {
			t.Errorf("align %d: Upload called %v, want [%s]", tt.align, calls, tt.uploadCopyCall)
		}
		for range 2 {
			if err := b.ReleaseInput(); err != nil {
				t.Fatalf("align %d: ReleaseInput: %v", tt.align, err)
			}
		}
		if n := fd.Live()["device buffers"]; b.In != 0 || n != 1 {
			t.Errorf("align %d: after ReleaseInput In = %v with %d buffers live, want 0 with 1", tt.align, b.In, n)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if live := fd.Live(); live["device buffers"]+live["streams"]+live["events"] != 0 {
			t.Errorf("align %d: live after Close: %v, want no buffers, streams or events", tt.align, live)
		}
	}
}
