package userkernel

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/convbench/convbench/convolve"
	"github.com/google/go-cmp/cmp"
)

func TestParseHeader(t *testing.T) {
	all := defaults("conv")
	tests := []struct {
		name string
		src  string
		want func(s *Spec)
	}{
		{"entry only", "// convbench:kernel\n// entry: conv\n", func(s *Spec) { s.Entry = "conv" }},
		{"no space after //", "//convbench:kernel\n//entry:conv\n", func(s *Spec) { s.Entry = "conv" }},
		{"after other comments and code", "// my kernel\n#include \"border.cuh\"\n\n  // convbench:kernel\n  //   entry:   conv  \n__global__ void x() {}\n",
			func(s *Spec) { s.Entry = "conv" }},
		{"prose after an empty comment", "// convbench:kernel\n// entry: conv\n//\n// This kernel: does things.\n",
			func(s *Spec) { s.Entry = "conv" }},
		{"every field", strings.Join([]string{
			"// convbench:kernel",
			"// name: my-conv.v2",
			"// summary: tiled, 2x4 pixels a thread",
			"// entry: conv_tile",
			"// geometry: pixel 2x4",
			"// shared: tile",
			"// filter: constant c_w",
			"// types: f32, u8",
			"// borders: zero,wrap",
			"// channels: 1, 3",
			"// layouts: planar",
			"// block: 32x8",
			"// blocks: 32x8, 16x16",
			"// max-filter: 31",
			"// order: reference",
			"// finite-input: true",
			"extern \"C\" __global__ void conv_tile() {}",
		}, "\n"), func(s *Spec) {
			*s = Spec{Name: "my-conv.v2", Summary: "tiled, 2x4 pixels a thread", Entry: "conv_tile",
				Geometry: Geometry{2, 4}, Shared: TileShared, Constant: "c_w",
				Types:    []convolve.ElemType{convolve.Float32, convolve.Uint8},
				Borders:  []convolve.Border{convolve.Zero, convolve.Wrap},
				Channels: []int{1, 3}, Layouts: []convolve.Layout{convolve.Planar},
				Block: convolve.Block{X: 32, Y: 8}, Blocks: []convolve.Block{{X: 32, Y: 8}, {X: 16, Y: 16}},
				MaxFilter: 31, ReferenceOrder: true, FiniteInput: true}
		}},
		{"blocks without block takes the first", "// convbench:kernel\n// entry: conv\n// blocks: 8x8,4x4\n",
			func(s *Spec) {
				s.Entry = "conv"
				s.Block = convolve.Block{X: 8, Y: 8}
				s.Blocks = []convolve.Block{{X: 8, Y: 8}, {X: 4, Y: 4}}
			}},
		{"geometry pixel 1x1 and global filter", "// convbench:kernel\n// entry: conv\n// geometry: pixel 1x1\n// filter: global\n// blocks: any\n// order: any\n// finite-input: false\n// shared: none\n",
			func(s *Spec) { s.Entry = "conv" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found, err := ParseHeader("dir/conv.cu", tt.src)
			if err != nil || !found {
				t.Fatalf("found %v, err %v", found, err)
			}
			want := all
			tt.want(&want)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("spec (-want +got):\n%s", d)
			}
		})
	}
}

func TestParseHeaderAbsent(t *testing.T) {
	_, found, err := ParseHeader("k.cu", "// entry: conv\nextern \"C\" __global__ void conv() {}\n")
	if found || err != nil {
		t.Errorf("found %v, err %v: want no header and no error", found, err)
	}
}

func TestParseSidecar(t *testing.T) {
	text := "# my kernel's description\n\nentry: conv\n  types: f32\nname: fancy\n"
	got, err := ParseSidecar("k/my.kernel", "k/my.cu", text)
	if err != nil {
		t.Fatal(err)
	}
	want := defaults("my")
	want.Entry, want.Types, want.Name = "conv", []convolve.ElemType{convolve.Float32}, "fancy"
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("spec (-want +got):\n%s", d)
	}
	def, err := ParseSidecar("k/my.kernel", "k/my.cu", "entry: conv")
	if err != nil || def.Name != "user-my" || def.Summary != "user kernel my" {
		t.Errorf("defaults: name %q summary %q err %v; want user-my, user kernel my", def.Name, def.Summary, err)
	}
}

// Every bad field is a *SpecError with the file, the line, the field, the
// value and the valid values.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name  string
		body  string // header lines after the marker (line 2 on)
		line  int
		field string
		value string
		valid string // a part of the valid values, or of the message
	}{
		{"missing entry", "// types: f32", 0, "entry", "", "extern \"C\" __global__"},
		{"unknown field", "// entry: conv\n// colour: red", 3, "colour", "", "entry"},
		{"twice", "// entry: conv\n// entry: conv2", 3, "entry", "", "first on line 2"},
		{"empty value", "// entry:", 2, "entry", "", "C identifier"},
		{"not key value", "// entry conv", 2, "", "entry conv", "key: value"},
		{"entry", "// entry: 2conv", 2, "entry", "2conv", "C identifier"},
		{"name", "// entry: conv\n// name: my/kernel", 3, "name", "my/kernel", "letters, digits"},
		{"geometry word", "// entry: conv\n// geometry: row", 3, "geometry", "row", "pixel RXxRY"},
		{"geometry patch", "// entry: conv\n// geometry: pixel 0x2", 3, "geometry", "pixel 0x2", "from 1 to 64"},
		{"geometry too large", "// entry: conv\n// geometry: pixel 65x1", 3, "geometry", "pixel 65x1", "from 1 to 64"},
		{"shared", "// entry: conv\n// shared: lots", 3, "shared", "lots", "none, tile"},
		{"filter", "// entry: conv\n// filter: texture", 3, "filter", "texture", "constant NAME"},
		{"filter constant name", "// entry: conv\n// filter: constant 9w", 3, "filter", "constant 9w", "constant NAME"},
		{"types", "// entry: conv\n// types: f32, f64", 3, "types", "f32, f64", "u8"},
		{"types twice", "// entry: conv\n// types: f32,f32", 3, "types", "f32,f32", "given twice"},
		{"types empty item", "// entry: conv\n// types: f32,,u8", 3, "types", "f32,,u8", "empty item"},
		{"borders", "// entry: conv\n// borders: clamp", 3, "borders", "clamp", "replicate"},
		{"channels", "// entry: conv\n// channels: 1,5", 3, "channels", "1,5", "1, 2, 3, 4"},
		{"layouts", "// entry: conv\n// layouts: chunky", 3, "layouts", "chunky", "interleaved, planar"},
		{"block", "// entry: conv\n// block: 64x32", 3, "block", "64x32", "at most 1024 threads"},
		{"blocks", "// entry: conv\n// blocks: 8x8, big", 3, "blocks", "8x8, big", "any, or"},
		{"block outside blocks", "// entry: conv\n// block: 16x16\n// blocks: 8x8", 3, "block", "16x16", "8x8"},
		{"max-filter", "// entry: conv\n// max-filter: 2000", 3, "max-filter", "2000", "1 to 1023"},
		{"order", "// entry: conv\n// order: rows", 3, "order", "rows", "reference"},
		{"finite-input", "// entry: conv\n// finite-input: yes", 3, "finite-input", "yes", "true, false"},
		{"second header", "// entry: conv\nint x;\n// convbench:kernel\n// entry: conv", 4, "", "", "second description header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, found, err := ParseHeader("k/conv.cu", "// convbench:kernel\n"+tt.body+"\n")
			var se *SpecError
			if !found || !errors.As(err, &se) {
				t.Fatalf("found %v, err %v (%T): want a *SpecError", found, err, err)
			}
			if se.File != "k/conv.cu" || se.Line != tt.line || se.Field != tt.field || se.Value != tt.value {
				t.Errorf("error %+v: want file k/conv.cu line %d field %q value %q", se, tt.line, tt.field, tt.value)
			}
			if !strings.Contains(se.Valid+" "+se.Msg, tt.valid) {
				t.Errorf("error %q: want it to say %q", err, tt.valid)
			}
			if tt.line > 0 && !strings.HasPrefix(err.Error(), "k/conv.cu:"+strconv.Itoa(tt.line)+": ") {
				t.Errorf("error %q: want it to start with file:line", err)
			}
		})
	}
}

// A default name made from a file name that is no variant name asks for
// a name.
func TestDefaultNameInvalid(t *testing.T) {
	_, _, err := ParseHeader("k/my kernel.cu", "// convbench:kernel\n// entry: conv\n")
	var se *SpecError
	if !errors.As(err, &se) || se.Field != "name" || se.Value != "user-my kernel" {
		t.Fatalf("err %v: want a *SpecError on the name user-my kernel", err)
	}
	if _, _, err := ParseHeader("k/my kernel.cu", "// convbench:kernel\n// entry: conv\n// name: mine\n"); err != nil {
		t.Errorf("with a name: %v", err)
	}
}

// Format writes a description that parses back to the same Spec.
func TestFormatRoundTrip(t *testing.T) {
	src := "// convbench:kernel\n// entry: conv\n// geometry: pixel 1x4\n// filter: constant c_f\n// types: u8\n// blocks: 32x4\n// order: reference\n"
	s, _, err := ParseHeader("a/b.cu", src)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseSidecar("a/b.kernel", "a/b.cu", s.Format())
	if err != nil {
		t.Fatalf("%v\n%s", err, s.Format())
	}
	if d := cmp.Diff(s, back); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
}
