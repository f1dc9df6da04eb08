package cudabind_test

import (
	"testing"
	"unsafe"

	"github.com/convbench/convbench/cudabind"
	"github.com/convbench/convbench/cudabind/driver/fakedriver"
)

// TestPeerCopies checks, on the fake driver, which pairs of devices can
// reach each other, that enabling access twice is no error, and that a
// peer copy moves the bytes, as a device copy within one context and
// through cuMemcpyPeerAsync between GPUs.
func TestPeerCopies(t *testing.T) {
	for _, tc := range []struct {
		name        string
		fd          *fakedriver.Driver
		ordinals    [2]int
		can         bool
		api         string
		enableFails bool
	}{
		{"logical devices of one GPU", &fakedriver.Driver{Devices: 1}, [2]int{0, 0}, true, "cuMemcpyDtoDAsync", false},
		{"two GPUs with a peer link", &fakedriver.Driver{Devices: 2}, [2]int{0, 1}, true, "cuMemcpyPeerAsync", false},
		{"two GPUs without one", &fakedriver.Driver{Devices: 2, PeerDenied: true}, [2]int{0, 1}, false, "", true},
		{"a driver without the peer calls", &fakedriver.Driver{Devices: 2, NoPeer: true}, [2]int{0, 1}, false, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var devs [2]*cudabind.Device
			for i, o := range tc.ordinals {
				d, err := cudabind.OpenDriver(tc.fd, o)
				if err != nil {
					t.Fatalf("OpenDriver(%d): %v", o, err)
				}
				t.Cleanup(func() { d.Close() })
				devs[i] = d
			}
			if got := devs[0].SameContext(devs[1]); got != (tc.ordinals[0] == tc.ordinals[1]) {
				t.Errorf("SameContext = %v for ordinals %v", got, tc.ordinals)
			}
			src := []byte("halo rows 0123456789abcdef")
			got := make([]byte, len(src))
			var a, b cudabind.DevPtr
			err := devs[0].Do(func(x *cudabind.Exec) error {
				can, err := x.CanAccessPeer(devs[1])
				if err != nil {
					return err
				}
				if can != tc.can {
					t.Errorf("CanAccessPeer = %v, want %v", can, tc.can)
				}
				for range 2 {
					if err := x.EnablePeerAccess(devs[1]); (err != nil) != tc.enableFails {
						t.Errorf("EnablePeerAccess = %v, want an error: %v", err, tc.enableFails)
					}
				}
				if a, err = x.Alloc(int64(len(src))); err != nil {
					return err
				}
				return x.CopyHtoD(a, unsafe.Pointer(&src[0]), int64(len(src)))
			})
			if err != nil {
				t.Fatal(err)
			}
			err = devs[1].Do(func(x *cudabind.Exec) error {
				var err error
				if b, err = x.Alloc(int64(len(src))); err != nil {
					return err
				}
				if tc.can {
					if err := x.CopyPeerAsync(b, devs[1], a, devs[0], int64(len(src)), 0); err != nil {
						return err
					}
					if err := x.CopyDtoH(unsafe.Pointer(&got[0]), b, int64(len(got))); err != nil {
						return err
					}
				}
				return x.Free(b)
			})
			if err != nil {
				t.Fatal(err)
			}
			devs[0].Do(func(x *cudabind.Exec) error { return x.Free(a) })
			if !tc.can {
				return
			}
			if string(got) != string(src) {
				t.Errorf("peer copy gave %q, want %q", got, src)
			}
			cs := tc.fd.Copies()
			if len(cs) < 2 || cs[1].API != tc.api || cs[1].Dst != uint64(b) || cs[1].Src != uint64(a) || cs[1].Bytes != uint64(len(src)) {
				t.Errorf("copies %+v: the second should be %s from %#x to %#x", cs, tc.api, a, b)
			}
		})
	}
}
