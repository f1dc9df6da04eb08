package gpuslab

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/cudabind/driver"
	"github.com/convbench/convbench/cudabind/driver/fakedriver"
	"github.com/convbench/convbench/gpu/variants"
	"github.com/convbench/convbench/internal/imagetest"
	_ "github.com/convbench/convbench/refimpl"
	"github.com/convbench/convbench/results"
)

// hostNaive is a GPU variant for the fake driver: its plans hold their
// buffers on the (fake) device as every Base does, and their device work
// downloads the input, runs cpu-naive on the host and uploads the output.
// The fake runs copies at once, so it computes what a kernel would: the
// orchestration around it (slabs, halos, chunks, streams, exchanges) is
// then proved bit for bit against cpu-naive on the whole image.
//
// With pad > 1 the plans pad their device input's rows to multiples of
// pad elements (Base.PadInputRows), as gpu-regtile's do.
func hostNaive(t testing.TB, pad int) *variants.Variant {
	t.Helper()
	naive, err := convolve.Lookup("cpu-naive")
	if err != nil {
		t.Fatal(err)
	}
	caps := naive.Describe().Caps
	caps.GPU = true
	return &variants.Variant{
		Desc: convolve.Description{Name: "fake-naive", Caps: caps},
		Setup: func(b *variants.Base) error {
			if err := b.PadInputRows(pad); err != nil {
				return err
			}
			p := b.Problem
			p.Input.Stride = b.InStride()
			ip, err := naive.Plan(p, convolve.Config{})
			if err != nil {
				return err
			}
			b.OnClose(func(*cudabind.Exec) error { return ip.Close() })
			in, err := convolve.NewImage(p.Input)
			if err != nil {
				return err
			}
			if err := b.PadOutputRows(pad); err != nil {
				return err
			}
			out, err := convolve.NewImage(b.OutGeometry())
			if err != nil {
				return err
			}
			outBytes := int64(out.Len()) * int64(out.Type.Size())
			b.Enqueue = func(x *cudabind.Exec, s cudabind.Stream) error {
				// The host image's last row stops at its width: copy its
				// length, not the device buffer's (whose rows are whole).
				if err := x.CopyDtoH(variants.HostData(in), b.In, int64(in.Len())*int64(in.Type.Size())); err != nil {
					return err
				}
				if err := ip.Run(in, out); err != nil {
					return err
				}
				return x.CopyHtoD(b.Out, variants.HostData(out), outBytes)
			}
			return nil
		},
	}
}

// fakeVariant is Wrap or Stream of hostNaive on the GPUs of fd.
func fakeVariant(t testing.TB, fd *fakedriver.Driver, n int, limit int64) *variant {
	return fakePadded(t, fd, n, limit, 1)
}

// fakePadded is fakeVariant with the device input's and output's rows
// padded to multiples of pad elements.
func fakePadded(t testing.TB, fd *fakedriver.Driver, n int, limit int64, pad int) *variant {
	inner := hostNaive(t, pad)
	v := &variant{inner: inner, n: n, limit: limit,
		open: func(o int) (*cudabind.Device, error) { return cudabind.OpenDriver(fd, o) },
		gpus: func() (int, error) { return max(fd.Devices, 1), nil }}
	return v
}

// runNaive is cpu-naive's output for p on in.
func runNaive(t testing.TB, p convolve.Problem, in *convolve.Image) *convolve.Image {
	t.Helper()
	naive, _ := convolve.Lookup("cpu-naive")
	pl, err := naive.Plan(p, convolve.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Close()
	out, _ := p.NewOutput()
	if err := pl.Run(in, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func problem(r *rand.Rand, w, h, kw, kh int, b convolve.Border, g convolve.Geometry) convolve.Problem {
	g.Width, g.Height = w, h
	return convolve.Problem{Op: convolve.Filter2D, Input: g, Filter: imagetest.RandomFilter(r, kw, kh), Border: b}
}

var borders = []convolve.Border{convolve.Zero, convolve.Replicate, convolve.Reflect, convolve.Mirror, convolve.Wrap}

var shapes = []convolve.Geometry{
	{Channels: 1, Type: convolve.Float32},
	{Channels: 1, Type: convolve.Uint8, Stride: 13},
	{Channels: 3, Type: convolve.Int16},
	{Channels: 2, Type: convolve.Float32, Layout: convolve.Planar},
}

// TestOneShotMatchesWhole runs the one-shot pipeline on the fake driver
// over 1 to 4 logical devices of one GPU and over two GPUs, 1 to 5
// chunks and 1 to 4 streams per device, every border, images with fewer
// rows than chunks, slabs shorter than the filter and padded rows, and
// checks the output against cpu-naive on the whole image bit for bit.
func TestOneShotMatchesWhole(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 0))
	for _, gpus := range []int{1, 2} {
		for _, devs := range [][]int{{0}, {0, 0}, {0, 0, 0}, {0, 0, 0, 0}, {0, 1}, {1, 0, 1}} {
			if slices.Max(devs) >= gpus {
				continue
			}
			fd := &fakedriver.Driver{Devices: gpus}
			v := fakeVariant(t, fd, 0, 0)
			if len(devs) == 3 {
				v = fakePadded(t, fd, 0, 0, 8) // rows of 5 elements padded to 8
			}
			for _, b := range borders {
				for _, h := range []int{1, 2, 3, 7, 13} {
					for _, kh := range []int{1, 3, 5, 9} {
						g := shapes[r.IntN(len(shapes))]
						p := problem(r, 5, h, 3, kh, b, g)
						chunks, streams := 1+r.IntN(5), 1+r.IntN(4)
						cfg := convolve.Config{Devices: devs, Tunables: map[string]int{tuneChunks: chunks, tuneStreams: streams}}
						name := fmt.Sprintf("gpus=%v devs=%v %v h=%d kh=%d %v chunks=%d streams=%d", gpus, devs, b, h, kh, g, chunks, streams)
						in := imagetest.Random(r, p.Input, imagetest.Mixed)
						want := runNaive(t, p, in)
						pl, err := v.Plan(p, cfg)
						if err != nil {
							t.Fatalf("%s: Plan: %v", name, err)
						}
						out, _ := p.NewOutput()
						imagetest.Poison(out)
						if err := pl.Run(in, out); err != nil {
							t.Fatalf("%s: Run: %v", name, err)
						}
						if err := imagetest.BitDiff(out, want); err != nil {
							t.Errorf("%s: %v", name, err)
						}
						if err := pl.Close(); err != nil {
							t.Errorf("%s: Close: %v", name, err)
						}
					}
				}
			}
			if live := fd.Live(); len(live) != 0 {
				t.Errorf("devs %v: the fake driver still holds %v", devs, live)
			}
		}
	}
}

// TestCopyLists checks the copies and streams of one one-shot run on the
// fake driver: every chunk's uploads are the runs of Partition.Copies on
// its own stream, streams taken in turn per device, then its download of
// its own output rows, and nothing else is copied between host and
// device but the wrapped plans' own work.
func TestCopyLists(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 0))
	fd := &fakedriver.Driver{}
	v := fakeVariant(t, fd, 0, 0)
	p := problem(r, 8, 24, 3, 5, convolve.Reflect, convolve.Geometry{Channels: 1, Type: convolve.Float32})
	pl, err := v.Plan(p, convolve.Config{Devices: []int{0, 0}, Tunables: map[string]int{tuneChunks: 3, tuneStreams: 2}})
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Close()
	sp := pl.(*plan)
	if got := len(sp.pt.Slabs); got != 6 {
		t.Fatalf("%d chunks, want 2 devices x 3", got)
	}
	in := imagetest.Random(r, p.Input, imagetest.Mixed)
	out, _ := p.NewOutput()
	before := len(fd.Copies())
	if err := pl.Run(in, out); err != nil {
		t.Fatal(err)
	}
	rowBytes := uint64(8 * 4)
	// The devices run concurrently: compare each stream's copies in order.
	byStream := map[cudabind.Stream][]fakedriver.Copy{}
	for _, c := range fd.Copies()[before:] {
		if c.API == "cuMemcpyHtoDAsync" || c.API == "cuMemcpyDtoHAsync" {
			byStream[cudabind.Stream(c.Stream)] = append(byStream[cudabind.Stream(c.Stream)], c)
		}
	}
	want := map[cudabind.Stream][]fakedriver.Copy{}
	for di, dv := range sp.devs {
		if len(dv.streams) != 2 {
			t.Errorf("device %d has %d streams, want 2", di, len(dv.streams))
		}
		for j, ci := range dv.chunks {
			c := sp.chunks[ci]
			if c.dev != di || c.stream != j%2 {
				t.Errorf("chunk %d on device %d stream %d, want device %d stream %d", ci, c.dev, c.stream, di, j%2)
			}
			s := dv.streams[c.stream]
			for _, cp := range sp.pt.Copies(ci) {
				want[s] = append(want[s], fakedriver.Copy{API: "cuMemcpyHtoDAsync", Dst: uint64(c.b.In) + uint64(cp.Dst)*rowBytes,
					Src: uint64(uintptr(variants.HostData(in))) + uint64(cp.Src)*rowBytes, Bytes: uint64(cp.Rows) * rowBytes, Stream: driverStream(s)})
			}
			want[s] = append(want[s], fakedriver.Copy{API: "cuMemcpyDtoHAsync", Dst: uint64(uintptr(variants.HostData(out))) + uint64(c.s.Y0)*rowBytes,
				Src: uint64(c.b.Out) + uint64(c.s.Top())*rowBytes, Bytes: uint64(c.s.Rows()) * rowBytes, Stream: driverStream(s)})
		}
	}
	if len(want) != 4 || len(byStream) != 4 {
		t.Errorf("copies on %d streams, want %d: 2 per device", len(byStream), len(want))
	}
	for s, w := range want {
		if !slices.Equal(byStream[s], w) {
			t.Errorf("stream %#x: copies\n%+v\nwant\n%+v", s, byStream[s], w)
		}
	}
}

func driverStream(s cudabind.Stream) driver.Stream { return driver.Stream(s) }

// TestResidentPasses runs k resident passes on the fake driver between
// logical devices of one GPU, two GPUs with peer access and two without,
// and checks the image against k runs of cpu-naive on the whole image bit
// for bit, the link each pair took, and that every exchange copy of a
// pass comes after every kernel of that pass.
func TestResidentPasses(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 0))
	for _, tc := range []struct {
		name string
		fd   *fakedriver.Driver
		devs []int
		link Link
		api  string
	}{
		{"logical", &fakedriver.Driver{}, []int{0, 0, 0}, local, "cuMemcpyDtoDAsync"},
		{"peer", &fakedriver.Driver{Devices: 2}, []int{0, 1}, peer, "cuMemcpyPeerAsync"},
		{"staged", &fakedriver.Driver{Devices: 2, PeerDenied: true}, []int{0, 1}, staged, "cuMemcpyHtoDAsync"},
		{"padded", &fakedriver.Driver{Devices: 2}, []int{0, 1}, peer, "cuMemcpyPeerAsync"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := fakeVariant(t, tc.fd, 0, 0)
			if tc.name == "padded" {
				v = fakePadded(t, tc.fd, 0, 0, 4) // rows of 6 elements padded to 8
			}
			for _, b := range borders {
				for _, h := range []int{2, 5, 16} {
					p := problem(r, 6, h, 3, 5, b, convolve.Geometry{Channels: 1, Type: convolve.Float32})
					pl, err := v.Plan(p, convolve.Config{Devices: tc.devs, Tunables: map[string]int{tuneChunks: 2}})
					if err != nil {
						t.Fatal(err)
					}
					sp := pl.(*plan)
					if padded := sp.chunks[0].in.RowStride() == 8; padded != (tc.name == "padded") || sp.chunks[0].host != nil {
						t.Errorf("device input rows of %d elements, host copy %v", sp.chunks[0].in.RowStride(), sp.chunks[0].host != nil)
					}
					in := imagetest.Random(r, p.Input, imagetest.Mixed)
					if err := sp.Upload(in); err != nil {
						t.Fatal(err)
					}
					links, _ := sp.Links()
					if len(sp.devs) > 1 && links[1][0] != tc.link {
						t.Errorf("link from device 0 to 1 is %v, want %v", links[1][0], tc.link)
					}
					want := in
					for k := 1; k <= 3; k++ {
						calls := len(tc.fd.Calls())
						if err := sp.Pass(); err != nil {
							t.Fatal(err)
						}
						passCalls := len(tc.fd.Calls()) - calls
						want = runNaive(t, p, want)
						got, _ := p.NewOutput()
						imagetest.Poison(got)
						if err := sp.Download(got); err != nil {
							t.Fatal(err)
						}
						if err := imagetest.BitDiff(got, want); err != nil {
							t.Errorf("%v h=%d pass %d: %v", b, h, k, err)
						}
						// The host-computed kernels end with a synchronous
						// upload: none may follow the pass's first exchange copy.
						seq := tc.fd.Calls()[calls:]
						first := slices.Index(seq, tc.api)
						if h > 2 && len(sp.devs) > 1 && first < 0 {
							t.Errorf("%v h=%d: no %s in the pass", b, h, tc.api)
						}
						if first >= 0 && slices.Contains(seq[first:], "cuMemcpyHtoD") {
							t.Errorf("%v h=%d: a kernel ran after the exchange began: %v", b, h, seq)
						}
						// Events order the pass; the devices are
						// synchronized once, at its end.
						if syncs, streams := countCalls(seq[:passCalls], "cuStreamSynchronize"), sp.streamCount(); syncs != streams {
							t.Errorf("%v h=%d: %d stream synchronizations in a pass, want %d (each stream once, at the end)", b, h, syncs, streams)
						}
						if h > 2 && len(sp.devs) > 1 && !slices.Contains(seq, "cuStreamWaitEvent") {
							t.Errorf("%v h=%d: the pass waits on no event", b, h)
						}
					}
					// Timed iterations move the halos over the same links
					// and leave the uploaded image: Download is one filtering.
					if err := sp.Upload(in); err != nil {
						t.Fatal(err)
					}
					calls := len(tc.fd.Calls())
					if _, err := sp.TimeKernel(2); err != nil {
						t.Fatal(err)
					}
					if h > 2 && len(sp.devs) > 1 && !slices.Contains(tc.fd.Calls()[calls:], tc.api) {
						t.Errorf("%v h=%d: timed iterations made no %s", b, h, tc.api)
					}
					// The iterations run back to back: one synchronization
					// of each stream, after the last.
					if syncs, streams := countCalls(tc.fd.Calls()[calls:], "cuStreamSynchronize"), sp.streamCount(); syncs != streams {
						t.Errorf("%v h=%d: %d stream synchronizations in two timed iterations, want %d", b, h, syncs, streams)
					}
					got, _ := p.NewOutput()
					if err := sp.Download(got); err != nil {
						t.Fatal(err)
					}
					if err := imagetest.BitDiff(got, runNaive(t, p, in)); err != nil {
						t.Errorf("%v h=%d: Upload+TimeKernel(2)+Download: %v", b, h, err)
					}
					if err := pl.Close(); err != nil {
						t.Fatal(err)
					}
				}
			}
			if live := tc.fd.Live(); len(live) != 0 {
				t.Errorf("the fake driver still holds %v", live)
			}
		})
	}
}

// TestCapForcesStreaming checks that a cap too small for the one-shot
// slabs streams the image through two buffer pairs per device with the
// same output, that a device too small for the image streams it without
// a cap, and that a cap too small for one row is a *convolve.MemoryError
// for device memory.
func TestCapForcesStreaming(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 0))
	for _, b := range borders {
		for _, devs := range [][]int{{0}, {0, 0}} {
			fd := &fakedriver.Driver{}
			p := problem(r, 16, 40, 3, 7, b, convolve.Geometry{Channels: 1, Type: convolve.Float32})
			in := imagetest.Random(r, p.Input, imagetest.Mixed)
			want := runNaive(t, p, in)
			for _, capKiB := range []int{0, 2, 3} {
				v := fakeVariant(t, fd, 0, 0)
				pl, err := v.Plan(p, convolve.Config{Devices: devs, Tunables: map[string]int{tuneMemCap: capKiB}})
				if err != nil {
					t.Fatal(err)
				}
				sp := pl.(*plan)
				if sp.Streaming() != (capKiB > 0) {
					t.Errorf("%v cap %d KiB: streaming %v", b, capKiB, sp.Streaming())
				}
				if capKiB > 0 {
					rows, _ := streamRows(p, int64(capKiB)<<10)
					if len(sp.pt.Slabs) != (40+rows-1)/rows {
						t.Errorf("%v cap %d KiB: %d slabs of %d rows", b, capKiB, len(sp.pt.Slabs), rows)
					}
					for _, s := range sp.pt.Slabs {
						if s.InputRows() != sp.pt.Slabs[0].InputRows() {
							t.Errorf("%v: slab %+v is not as tall as the first", b, s)
						}
					}
					if got := len(sp.bases); got != len(devs) {
						t.Errorf("%d devices with buffer pairs", got)
					}
					for di, pair := range sp.bases {
						var need int64
						for _, bb := range pair {
							if bb != nil {
								need += bb.InBytes + bb.OutBytes
							}
						}
						if need > int64(capKiB)<<10 {
							t.Errorf("device %d holds %d bytes of slab buffers, over the cap", di, need)
						}
					}
				}
				out, _ := p.NewOutput()
				imagetest.Poison(out)
				if err := pl.Run(in, out); err != nil {
					t.Fatal(err)
				}
				if err := imagetest.BitDiff(out, want); err != nil {
					t.Errorf("%v devs %v cap %d KiB: %v", b, devs, capKiB, err)
				}
				if err := sp.Upload(in); err != nil {
					t.Fatal(err)
				}
				if _, err := sp.TimeKernel(2); err != nil {
					t.Fatal(err)
				}
				imagetest.Poison(out)
				if err := sp.Download(out); err != nil {
					t.Fatal(err)
				}
				if err := imagetest.BitDiff(out, want); err != nil {
					t.Errorf("%v devs %v cap %d KiB: Upload+TimeKernel(2)+Download: %v", b, devs, capKiB, err)
				}
				pl.Close()
			}
		}
	}
	// A device smaller than the image streams it without a cap.
	fd := &fakedriver.Driver{MemBytes: 4 << 10}
	p := problem(r, 16, 40, 3, 3, convolve.Zero, convolve.Geometry{Channels: 1, Type: convolve.Float32})
	in := imagetest.Random(r, p.Input, imagetest.Mixed)
	pl, err := fakeVariant(t, fd, 0, 0).Plan(p, convolve.Config{Tunables: map[string]int{tuneChunks: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if !pl.(*plan).Streaming() {
		t.Errorf("an image larger than the device is not streamed")
	}
	out, _ := p.NewOutput()
	if err := pl.Run(in, out); err != nil {
		t.Fatal(err)
	}
	if err := imagetest.BitDiff(out, runNaive(t, p, in)); err != nil {
		t.Errorf("streamed on a small device: %v", err)
	}
	pl.Close()
	// Two logical devices share their GPU's memory: slabs that each fit
	// in it but not together are streamed.
	fd = &fakedriver.Driver{MemBytes: 4 << 10}
	pl, err = fakeVariant(t, fd, 0, 0).Plan(p, convolve.Config{Devices: []int{0, 0}, Tunables: map[string]int{tuneChunks: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if !pl.(*plan).Streaming() {
		t.Errorf("two logical devices whose slabs overfill their GPU together are not streamed")
	}
	if err := pl.Run(in, out); err != nil {
		t.Fatal(err)
	}
	if err := imagetest.BitDiff(out, runNaive(t, p, in)); err != nil {
		t.Errorf("streamed on two logical devices of a small GPU: %v", err)
	}
	pl.Close()
	// Too small a cap is a capability the plan lacks, too small a device
	// a *convolve.MemoryError for device memory.
	_, err = fakeVariant(t, &fakedriver.Driver{}, 0, 100).Plan(p, convolve.Config{})
	var ce *convolve.CapabilityError
	if !errors.As(err, &ce) || ce.What != "image rows" {
		t.Errorf("cap of 100 bytes: %v, want a *convolve.CapabilityError", err)
	}
	_, err = fakeVariant(t, &fakedriver.Driver{MemBytes: 400}, 0, 0).Plan(p, convolve.Config{})
	var me *convolve.MemoryError
	if !errors.As(err, &me) || me.Memory != "device" {
		t.Errorf("a device of 400 bytes: %v, want a *convolve.MemoryError for device memory", err)
	}
}

// TestTimeline checks that a timed run gives three spans per chunk, in
// order on their streams, and the same output as Run.
func TestTimeline(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 0))
	fd := &fakedriver.Driver{}
	p := problem(r, 8, 32, 3, 3, convolve.Zero, convolve.Geometry{Channels: 1, Type: convolve.Float32})
	pl, err := fakeVariant(t, fd, 0, 0).Plan(p, convolve.Config{Devices: []int{0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Close()
	in := imagetest.Random(r, p.Input, imagetest.Mixed)
	out, _ := p.NewOutput()
	spans, err := pl.(Timed).Timeline(in, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(spans) != 3*2*defaultChunks {
		t.Errorf("%d spans, want %d", len(spans), 3*2*defaultChunks)
	}
	for _, s := range spans {
		if s.EndUS < s.StartUS || s.StartUS < 0 {
			t.Errorf("span %+v ends before it starts", s)
		}
	}
	if err := imagetest.BitDiff(out, runNaive(t, p, in)); err != nil {
		t.Error(err)
	}
}

// TestNames checks the family's names and their lookups.
func TestNames(t *testing.T) {
	for name, want := range map[string]string{
		"gpu-slab-gpu-tiled":          "",
		"gpu-slab3-gpu-tiled":         "",
		"gpu-stream64KiB-gpu-tiled":   "",
		"gpu-slab0-gpu-tiled":         "device count",
		"gpu-slab-cpu-naive":          "not a GPU variant",
		"gpu-slab-nonesuch":           "no variant",
		"slab2-gpu-tiled":             "is not gpu-slab",
		"gpu-stream99999999GiB-gpu-x": "",
	} {
		v, err := Lookup(name)
		switch {
		case want == "" && err != nil && name != "gpu-stream99999999GiB-gpu-x":
			t.Errorf("Lookup(%s): %v", name, err)
		case want == "" && err == nil && v.Describe().Name != name:
			t.Errorf("Lookup(%s) describes itself as %s", name, v.Describe().Name)
		case want != "" && (err == nil || !contains(err.Error(), want)):
			t.Errorf("Lookup(%s) = %v, want an error about %q", name, err, want)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// TestWriteTimeline checks the timeline lines against their reader in
// package results: every span comes back, with its fields.
func TestWriteTimeline(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 0))
	fd := &fakedriver.Driver{}
	p := problem(r, 8, 16, 3, 3, convolve.Zero, convolve.Geometry{Channels: 1, Type: convolve.Float32})
	pl, err := fakeVariant(t, fd, 0, 0).Plan(p, convolve.Config{Devices: []int{0, 0}, Tunables: map[string]int{tuneChunks: 2}})
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Close()
	in := imagetest.Random(r, p.Input, imagetest.Mixed)
	out, _ := p.NewOutput()
	var sb strings.Builder
	sb.WriteString("gpu: Fake GPU\n")
	if err := pl.(Timed).WriteTimeline(&sb, "variant=x/gpus=0,0", in, out); err != nil {
		t.Fatal(err)
	}
	if err := pl.(Timed).WriteTimeline(&sb, "two words", in, out); err == nil {
		t.Error("a label with a space: no error")
	}
	run, err := results.ReadRun(strings.NewReader(sb.String()), "data/fake/004-multigpu.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Timeline) != 3*4 {
		t.Fatalf("%d spans read back, want 12:\n%s", len(run.Timeline), sb.String())
	}
	for _, s := range run.Timeline {
		if s.Case != "variant=x/gpus=0,0" || s.Dev > 1 || s.GPU != 0 || s.Stream > 1 || s.EndUS < s.StartUS {
			t.Errorf("span %+v", s)
		}
	}
}

// countCalls counts the calls of api in calls.
func countCalls(calls []string, api string) int {
	n := 0
	for _, c := range calls {
		if c == api {
			n++
		}
	}
	return n
}

// streamCount is the number of streams of every device of pl.
func (pl *plan) streamCount() int {
	n := 0
	for _, dv := range pl.devs {
		n += len(dv.streams)
	}
	return n
}

// TestTunableValues: a slab variant declares no tuning space, and lists
// for every tunable the values its wrapped variant's space lists, and its
// own tunables' values, so that a conformance suite draws only settings
// the wrapped variant accepts.
func TestTunableValues(t *testing.T) {
	for _, inner := range []string{"gpu-sepfused", "gpu-regtile", "gpu-tiled"} {
		w, err := convolve.Lookup(inner)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"gpu-slab-" + inner, "gpu-stream64KiB-" + inner} {
			v, err := Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			caps := v.Describe().Caps
			if caps.Space != nil {
				t.Errorf("%s declares a tuning space", name)
			}
			want := map[string][]int{}
			for _, tu := range w.Describe().Caps.Space.Tunables {
				want[tu.Name] = tu.Values
			}
			for k, vals := range ownTunableValues {
				want[k] = vals
			}
			for _, tun := range caps.Tunables {
				if got := caps.TunableValues[tun]; !slices.Equal(got, want[tun]) {
					t.Errorf("%s: values of %s %v, want %v", name, tun, got, want[tun])
				}
			}
		}
	}
}
