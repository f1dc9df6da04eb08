package runfile

import "testing"

func TestPairingName(t *testing.T) {
	const mid = "/size=8x8/filter=box3/k=3/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none"
	const gmid = "/size=8x8/filter=box3/k=3/block=16x16/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=kernel/mem=none"
	tests := []struct {
		in, want string
		wantErr  bool
	}{
		// CPU cases: opts=none, written by older runs, goes.
		{"Conv/variant=cpu-fast" + mid + "/opts=none", "Conv/variant=cpu-fast" + mid, false},
		{"Conv/variant=cpu-fast" + mid, "Conv/variant=cpu-fast" + mid, false},
		{"BenchmarkConv/variant=cpu-fast" + mid + "/opts=none-8", "BenchmarkConv/variant=cpu-fast" + mid + "-8", false},
		{"variant=cpu-fast" + mid + "/opts=none/tune=none", "variant=cpu-fast" + mid, false},
		// GPU cases: stored before the opts key, they get opts=default.
		{"Conv/variant=gpu-naive" + gmid, "Conv/variant=gpu-naive" + gmid + "/opts=default", false},
		{"Conv/variant=gpu-naive" + gmid + "/opts=default-4", "Conv/variant=gpu-naive" + gmid + "/opts=default-4", false},
		{"Conv/variant=gpu-naive" + gmid + "/opts=nofma", "Conv/variant=gpu-naive" + gmid + "/opts=nofma", false},
		{"Conv/variant=gpu-naive" + gmid + "/opts=default/tune=default", "Conv/variant=gpu-naive" + gmid + "/opts=default", false},
		{"Conv/variant=gpu-sobel" + gmid + "/opts=default/tune=shared=1", "Conv/variant=gpu-sobel" + gmid + "/opts=default/tune=shared=1", false},
		{"Conv/variant=gpu-naive/size=8x8", "", true},
		{"Conv/variant=gpu-naive" + gmid + "/oops", "", true},
	}
	for _, tt := range tests {
		got, err := PairingName(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("PairingName(%q) error %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if got != tt.want {
			t.Errorf("PairingName(%q) =\n %q\nwant\n %q", tt.in, got, tt.want)
		}
	}
}
