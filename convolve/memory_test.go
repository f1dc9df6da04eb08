package convolve

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestMemAvailable(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, text string
		want       int64
		ok         bool
	}{
		{"kB", "MemTotal:  1000 kB\nMemFree: 10 kB\nMemAvailable:    2048 kB\n", 2048 * 1024, true},
		{"no unit", "MemAvailable: 77\n", 77, true},
		{"missing", "MemTotal: 1000 kB\n", 0, false},
		{"garbage", "MemAvailable: lots kB\n", 0, false},
	}
	for _, tt := range tests {
		got, err := memAvailable(write(tt.name, tt.text))
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("%s: %d, %v; want %d, ok %v", tt.name, got, err, tt.want, tt.ok)
		}
	}
	if _, err := memAvailable(filepath.Join(dir, "absent")); err == nil {
		t.Error("absent file: no error")
	}
}

// TestCheckHostMemory: a need beyond what the host has (4 TiB, or an
// overflowed size) is a *MemoryError naming both byte counts; a small one
// passes.
func TestCheckHostMemory(t *testing.T) {
	avail, ok := HostMemoryAvailable()
	if runtime.GOOS == "linux" && (!ok || avail <= 0) {
		t.Errorf("HostMemoryAvailable on Linux = %d, %v", avail, ok)
	}
	if err := CheckHostMemory("a small buffer", 1<<10); err != nil {
		t.Errorf("1 KiB: %v", err)
	}
	for _, need := range []int64{1 << 42, math.MaxInt64, -1} {
		err := CheckHostMemory("a huge buffer", need)
		var me *MemoryError
		if !errors.As(err, &me) || me.Needed != need || me.Memory != "host" || me.Available <= 0 {
			t.Errorf("need %d: %v, want a *MemoryError", need, err)
			continue
		}
		if s := err.Error(); !strings.Contains(s, "a huge buffer") || !strings.Contains(s, "bytes of host memory") {
			t.Errorf("need %d: message %q", need, s)
		}
	}
}

func TestMulBytes(t *testing.T) {
	if got := MulBytes(1<<20, 1<<20, 4); got != 1<<42 {
		t.Errorf("MulBytes(2^20, 2^20, 4) = %d", got)
	}
	if got := MulBytes(1<<40, 1<<40, 4); got != math.MaxInt64 {
		t.Errorf("overflow: %d, want saturation", got)
	}
	if got := MulBytes(1<<62, 0); got != 0 {
		t.Errorf("zero factor: %d", got)
	}
}
