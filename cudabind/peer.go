package cudabind

import (
	"fmt"

	"github.com/convbench/convbench/cudabind/driver"
)

// SameContext reports whether d and o run in one CUDA context: two
// Devices opened on the same ordinal (logical devices of one GPU) share
// its primary context, so each can use the other's memory directly.
func (d *Device) SameContext(o *Device) bool {
	return d != nil && o != nil && d.drv.Driver == o.drv.Driver && d.dev == o.dev
}

// CanAccessPeer reports whether x's device can read and write the memory
// of peer through the interconnect (cuDeviceCanAccessPeer). Devices of one
// context always can; without the driver's peer entry points none can.
func (x *Exec) CanAccessPeer(peer *Device) (bool, error) {
	if err := x.ok("CanAccessPeer"); err != nil {
		return false, err
	}
	if peer == nil {
		return false, fmt.Errorf("cudabind: CanAccessPeer of a nil *Device")
	}
	if x.d.SameContext(peer) {
		return true, nil
	}
	if !x.lib().Has(driver.Peer) || x.d.drv.Driver != peer.drv.Driver {
		return false, nil
	}
	can, r := x.lib().DeviceCanAccessPeer(x.d.dev, peer.dev)
	if err := x.check("cuDeviceCanAccessPeer", r); err != nil {
		return false, err
	}
	return can != 0, nil
}

// EnablePeerAccess lets x's context access the memory of peer's context
// (cuCtxEnablePeerAccess); access enabled already is no error, and
// devices of one context need none.
func (x *Exec) EnablePeerAccess(peer *Device) error {
	if err := x.ok("EnablePeerAccess"); err != nil {
		return err
	}
	if peer == nil {
		return fmt.Errorf("cudabind: EnablePeerAccess of a nil *Device")
	}
	if x.d.SameContext(peer) {
		return nil
	}
	if peer.ctx == 0 {
		return fmt.Errorf("cudabind: EnablePeerAccess to device %d: its context is not open", peer.info.Ordinal)
	}
	r := x.lib().CtxEnablePeerAccess(peer.ctx, 0)
	if r == driver.ErrorPeerAccessAlreadyEnabled {
		return nil
	}
	return x.check("cuCtxEnablePeerAccess", r)
}

// CopyPeerAsync copies bytes from src in srcDev's memory to dst in
// dstDev's, ordered on stream s of x's device (cuMemcpyPeerAsync). Within
// one context it is a device-to-device copy.
func (x *Exec) CopyPeerAsync(dst DevPtr, dstDev *Device, src DevPtr, srcDev *Device, bytes int64, s Stream) error {
	if err := x.copyArgs("CopyPeerAsync", dst == 0 || src == 0, false, bytes); err != nil {
		return err
	}
	if dstDev == nil || srcDev == nil {
		return fmt.Errorf("cudabind: CopyPeerAsync with a nil *Device")
	}
	if dstDev.SameContext(srcDev) {
		return x.CopyDtoDAsync(dst, src, bytes, s)
	}
	return x.check("cuMemcpyPeerAsync", x.lib().MemcpyPeerAsync(driver.DevPtr(dst), dstDev.ctx, driver.DevPtr(src), srcDev.ctx, uint64(bytes), driver.Stream(s)))
}
