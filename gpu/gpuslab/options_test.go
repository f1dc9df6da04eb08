package gpuslab

import (
	"testing"

	"github.com/convbench/convbench/convolve"
)

// The slab tunables set the chunks, streams and memory cap of a plan; a
// negative one is refused with an error naming it and its value.
func TestTunableOptions(t *testing.T) {
	for _, tt := range []struct {
		name     string
		tunables map[string]int
		limit    int64
		want     Options
		wantErr  string
	}{
		{"defaults", nil, 0, Options{Chunks: defaultChunks, Streams: defaultStreams}, ""},
		{"stream variant's cap", nil, 4096, Options{Chunks: defaultChunks, Streams: defaultStreams, MemCap: 4096}, ""},
		{"set", map[string]int{tuneChunks: 3, tuneStreams: 2, tuneMemCap: 64}, 4096, Options{Chunks: 3, Streams: 2, MemCap: 64 << 10}, ""},
		{"zeros are the defaults", map[string]int{tuneChunks: 0, tuneStreams: 0, tuneMemCap: 0}, 0, Options{Chunks: defaultChunks, Streams: defaultStreams}, ""},
		{"negative chunks", map[string]int{tuneChunks: -1}, 0, Options{}, "gpuslab: chunks=-1: need at least one chunk per device (0: 4)"},
		{"negative streams", map[string]int{tuneStreams: -2}, 0, Options{}, "gpuslab: streams=-2: need at least one stream per device (0: 4)"},
		{"negative cap", map[string]int{tuneMemCap: -3}, 0, Options{}, "gpuslab: memcap-kib=-3: the cap must not be negative"},
	} {
		v := &variant{limit: tt.limit}
		got, err := v.tunableOptions(convolve.Config{Tunables: tt.tunables})
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got.Chunks != tt.want.Chunks || got.Streams != tt.want.Streams || got.MemCap != tt.want.MemCap || got.Devices != nil {
			t.Errorf("%s: got %+v, %v; want %+v", tt.name, got, err, tt.want)
		}
	}
}
