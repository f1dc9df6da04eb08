package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The copies benchstat reads name each case as runs write it today, and
// are labelled by the paths given.
func TestRewrite(t *testing.T) {
	const keys = "/size=8x8/filter=box3/k=3/block=none/border=zero/type=f32/ch=1/layout=interleaved/cache=hot/timing=cpu/mem=none"
	dir := t.TempDir()
	old := filepath.Join(dir, "old.txt")
	fresh := filepath.Join(dir, "a=b.txt")
	if err := os.WriteFile(old, []byte("cpu: A\nBenchmarkConv/variant=cpu-fast"+keys+"/opts=none 1 100 ns/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fresh, []byte("cpu: B\nBenchmarkConv/variant=cpu-fast"+keys+" 1 90 ns/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	inputs, err := rewrite([]string{old, fresh}, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) != 2 || !strings.HasPrefix(inputs[0], old+"=") || !strings.HasPrefix(inputs[1], "a-b.txt=") {
		t.Fatalf("inputs %q: want labels %s and a-b.txt", inputs, old)
	}
	for _, in := range inputs {
		_, path, _ := strings.Cut(in, "=")
		if strings.Contains(path, "=") {
			_, path, _ = strings.Cut(path, "=")
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "BenchmarkConv/variant=cpu-fast"+keys+" ") || strings.Contains(string(data), "opts=") {
			t.Errorf("%s:\n%s\nwant the case named without opts", in, data)
		}
	}
	if _, err := rewrite([]string{filepath.Join(dir, "missing.txt")}, out); err == nil {
		t.Error("a missing file: no error")
	}
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("BenchmarkConv/variant=cpu-fast/size=8x8 1 1 ns/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := rewrite([]string{bad}, out); err == nil || !strings.Contains(err.Error(), "bad.txt:1") {
		t.Errorf("a name without its keys: error %v, want one naming bad.txt:1", err)
	}
	if err := run([]string{"-row=.name"}); err == nil || !strings.Contains(err.Error(), "usage") {
		t.Errorf("no files: error %v, want the usage", err)
	}
	if err := run([]string{"-row", ".name", old}); err == nil || !strings.Contains(err.Error(), "-row=VALUE") {
		t.Errorf("a flag apart from its value: error %v, want one asking for -row=VALUE", err)
	}
}
