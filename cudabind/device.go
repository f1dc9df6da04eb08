package cudabind

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/convbench/convbench/cudabind/cudaerr"
	"github.com/convbench/convbench/cudabind/driver"
)

// CUdevice_attribute values used here (cuda.h).
const (
	attrMaxThreadsPerBlock       = 1
	attrMaxBlockDimX             = 2
	attrMaxGridDimX              = 5
	attrSharedPerBlock           = 8
	attrTotalConstantMemory      = 9
	attrWarpSize                 = 10
	attrRegistersPerBlock        = 12
	attrClockRate                = 13
	attrTextureAlignment         = 14
	attrMultiprocessorCount      = 16
	attrMemoryClockRate          = 36
	attrGlobalMemoryBusWidth     = 37
	attrL2CacheSize              = 38
	attrMaxThreadsPerSM          = 39
	attrTexturePitchAlignment    = 51
	attrMaxTexture1DLinearWidth  = 69
	attrMaxTexture2DLinearWidth  = 70
	attrMaxTexture2DLinearHeight = 71
	attrMaxTexture2DLinearPitch  = 72
	attrComputeCapabilityMajor   = 75
	attrComputeCapabilityMinor   = 76
	attrSharedPerSM              = 81
	attrSharedPerBlockOptin      = 97
)

// DeviceInfo describes one CUDA device.
type DeviceInfo struct {
	Ordinal      int
	Name         string
	UUID         string // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
	Major, Minor int    // compute capability
	SMs          int    // multiprocessors
	ClockKHz     int    // peak SM clock
	MemClockKHz  int    // peak memory clock
	BusWidthBits int    // global memory bus width
	// PeakBandwidthGBps is the theoretical DRAM bandwidth
	// (PeakBandwidthGBps of MemClockKHz and BusWidthBits).
	PeakBandwidthGBps     float64
	L2Bytes               int
	SharedPerBlock        int // default shared memory limit per block
	SharedPerBlockOptin   int // opt-in maximum (Function.SetMaxDynamicShared)
	SharedPerSM           int
	ConstantBytes         int
	TotalMemBytes         int64
	MaxThreadsPerBlock    int
	MaxThreadsPerSM       int
	MaxBlockDimX          int
	MaxGridDimX           int
	WarpSize              int
	RegistersPerBlock     int
	TextureAlignment      int // base address alignment of texture memory
	TexturePitchAlignment int // row pitch alignment of pitched 2-D textures
	MaxTex1DLinearWidth   int // elements of a 1-D linear texture
	MaxTex2DLinearWidth   int
	MaxTex2DLinearHeight  int
	MaxTex2DLinearPitch   int
	DriverVersion         int // cuDriverGetVersion: 13000 for 13.0
	NVRTCMajor            int // 0 when NVRTC could not be loaded
	NVRTCMinor            int
}

// PeakBandwidthGBps is the theoretical DRAM bandwidth of a memory clock
// and bus width: 2 * memClockKHz * 1000 * busWidthBits / 8 / 1e9 (double
// data rate).
func PeakBandwidthGBps(memClockKHz, busWidthBits int) float64 {
	return 2 * float64(memClockKHz) * 1e3 * float64(busWidthBits) / 8 / 1e9
}

// Arch returns the NVRTC real architecture, "sm_90" for CC 9.0.
func (i DeviceInfo) Arch() string { return fmt.Sprintf("sm_%d%d", i.Major, i.Minor) }

// CC returns the compute capability as "9.0".
func (i DeviceInfo) CC() string { return fmt.Sprintf("%d.%d", i.Major, i.Minor) }

// Driver returns the driver's CUDA version as "13.0".
func (i DeviceInfo) Driver() string { return versionString(i.DriverVersion) }

// NVRTC returns the NVRTC version as "13.0", or "" when NVRTC is absent.
func (i DeviceInfo) NVRTC() string {
	if i.NVRTCMajor == 0 {
		return ""
	}
	return fmt.Sprintf("%d.%d", i.NVRTCMajor, i.NVRTCMinor)
}

// Devices lists every CUDA device. With no driver or no device it returns
// an *UnavailableError.
func Devices() ([]DeviceInfo, error) {
	l, err := loadDriver()
	if err != nil {
		return nil, err
	}
	n, r := l.DeviceGetCount()
	if err := checkWith(l, "cuDeviceGetCount", r); err != nil {
		return nil, err
	}
	infos := make([]DeviceInfo, 0, n)
	for i := 0; i < int(n); i++ {
		info, _, err := l.deviceInfo(i)
		if err != nil {
			return nil, err
		}
		infos = append(infos, info)
	}
	return infos, nil
}

// deviceInfo queries the attributes of device ordinal.
func (l *cudaDriver) deviceInfo(ordinal int) (DeviceInfo, driver.Device, error) {
	dev, r := l.DeviceGet(int32(ordinal))
	if err := checkWith(l, "cuDeviceGet", r); err != nil {
		return DeviceInfo{}, 0, err
	}
	info := DeviceInfo{Ordinal: ordinal, DriverVersion: l.version}
	name, r := l.DeviceGetName(dev)
	if err := checkWith(l, "cuDeviceGetName", r); err != nil {
		return info, dev, err
	}
	info.Name = name
	uuid, r := l.DeviceGetUuid(dev)
	if err := checkWith(l, "cuDeviceGetUuid", r); err != nil {
		return info, dev, err
	}
	info.UUID = fmt.Sprintf("GPU-%x-%x-%x-%x-%x", uuid[0:4], uuid[4:6], uuid[6:8], uuid[8:10], uuid[10:16])
	total, r := l.DeviceTotalMem(dev)
	if err := checkWith(l, "cuDeviceTotalMem", r); err != nil {
		return info, dev, err
	}
	info.TotalMemBytes = int64(total)
	attrs := []struct {
		attr int
		dst  *int
	}{
		{attrComputeCapabilityMajor, &info.Major},
		{attrComputeCapabilityMinor, &info.Minor},
		{attrMultiprocessorCount, &info.SMs},
		{attrClockRate, &info.ClockKHz},
		{attrMemoryClockRate, &info.MemClockKHz},
		{attrGlobalMemoryBusWidth, &info.BusWidthBits},
		{attrL2CacheSize, &info.L2Bytes},
		{attrSharedPerBlock, &info.SharedPerBlock},
		{attrSharedPerBlockOptin, &info.SharedPerBlockOptin},
		{attrSharedPerSM, &info.SharedPerSM},
		{attrTotalConstantMemory, &info.ConstantBytes},
		{attrMaxThreadsPerBlock, &info.MaxThreadsPerBlock},
		{attrMaxThreadsPerSM, &info.MaxThreadsPerSM},
		{attrMaxBlockDimX, &info.MaxBlockDimX},
		{attrMaxGridDimX, &info.MaxGridDimX},
		{attrWarpSize, &info.WarpSize},
		{attrRegistersPerBlock, &info.RegistersPerBlock},
		{attrTextureAlignment, &info.TextureAlignment},
		{attrTexturePitchAlignment, &info.TexturePitchAlignment},
		{attrMaxTexture1DLinearWidth, &info.MaxTex1DLinearWidth},
		{attrMaxTexture2DLinearWidth, &info.MaxTex2DLinearWidth},
		{attrMaxTexture2DLinearHeight, &info.MaxTex2DLinearHeight},
		{attrMaxTexture2DLinearPitch, &info.MaxTex2DLinearPitch},
	}
	for _, a := range attrs {
		v, r := l.DeviceGetAttribute(driver.DeviceAttribute(a.attr), dev)
		if err := checkWith(l, fmt.Sprintf("cuDeviceGetAttribute(%d)", a.attr), r); err != nil {
			return info, dev, err
		}
		*a.dst = int(v)
	}
	info.PeakBandwidthGBps = PeakBandwidthGBps(info.MemClockKHz, info.BusWidthBits)
	if major, minor, err := NVRTCVersion(); err == nil {
		info.NVRTCMajor, info.NVRTCMinor = major, minor
	}
	return info, dev, nil
}

// Device is an opened CUDA device: its retained primary context and the
// executor goroutine, locked to one OS thread, on which every driver call
// for the device runs.
type Device struct {
	info DeviceInfo
	drv  *cudaDriver
	dev  driver.Device
	ctx  driver.Context

	work   chan task
	tid    atomic.Int64 // OS thread id of the executor
	exec   Exec
	mu     sync.Mutex // guards closed and reset
	closed bool
	// reset is the sticky error after which ResetFaulted reset the
	// context; nil while the device is usable.
	reset error
	stop  chan struct{}

	live [numKinds]atomic.Int64
}

type task struct {
	f    func(*Exec) error
	done chan error
}

// Resource kinds counted by LiveAllocations.
const (
	kindDevice = iota
	kindHost
	kindModule
	kindTexture
	kindStream
	kindEvent
	kindGraph
	numKinds
)

var kindNames = [numKinds]string{"device buffers", "pinned host buffers", "modules", "textures", "streams", "events", "graphs"}

// Default opens device 0 once and returns it on every call, or the cached
// error (an *UnavailableError without a driver or device). The default
// device is shared: do not Close it.
func Default() (*Device, error) { return defaultDevice() }

var defaultDevice = sync.OnceValues(func() (*Device, error) { return Open(0) })

var (
	sharedMu      sync.Mutex
	sharedDevices = map[int]func() (*Device, error){}
)

// Shared opens device ordinal once and returns it on every call, as
// Default does for device 0 (Shared(0) is Default()). The device is
// shared by every plan that runs on that ordinal: do not Close it.
func Shared(ordinal int) (*Device, error) {
	if ordinal == 0 {
		return Default()
	}
	sharedMu.Lock()
	get := sharedDevices[ordinal]
	if get == nil {
		get = sync.OnceValues(func() (*Device, error) { return Open(ordinal) })
		sharedDevices[ordinal] = get
	}
	sharedMu.Unlock()
	return get()
}

// Open retains the primary context of device ordinal and starts its
// executor. Close releases them.
func Open(ordinal int) (*Device, error) {
	l, err := loadDriver()
	if err != nil {
		return nil, err
	}
	return open(l, ordinal)
}

// OpenDriver initializes drv (cuInit) and opens device ordinal through it,
// as Open does through the driver library. It lets tests run the runtime
// on a fake driver (package driver/fakedriver). A driver that fails to
// initialize or has no device gives an *UnavailableError.
func OpenDriver(drv driver.Driver, ordinal int) (*Device, error) {
	l, err := initDriver(drv)
	if err != nil {
		return nil, err
	}
	return open(l, ordinal)
}

func open(l *cudaDriver, ordinal int) (*Device, error) {
	n, r := l.DeviceGetCount()
	if err := checkWith(l, "cuDeviceGetCount", r); err != nil {
		return nil, err
	}
	if ordinal < 0 || ordinal >= int(n) {
		return nil, fmt.Errorf("cudabind: device ordinal %d out of range [0, %d)", ordinal, n)
	}
	info, dev, err := l.deviceInfo(ordinal)
	if err != nil {
		return nil, err
	}
	d := &Device{info: info, drv: l, dev: dev, work: make(chan task), stop: make(chan struct{})}
	d.exec.d = d
	started := make(chan error)
	go d.run(started)
	if err := <-started; err != nil {
		return nil, err
	}
	openMu.Lock()
	openDevices[d] = true
	openMu.Unlock()
	return d, nil
}

// openDevices are the devices open in this process, for ResetFaulted.
var (
	openMu      sync.Mutex
	openDevices = map[*Device]bool{}
)

// ResetFaulted resets the primary context of every device open in this
// process that a sticky error poisoned (its synchronize returns one),
// with cuDevicePrimaryCtxReset, and returns how many it reset. The reset
// frees what this process held on the GPU, so that other processes can
// run there while this one lives, such as child processes that check a
// faulting case alone. A reset device is not used again in this process:
// its Do returns an error naming the sticky error, and its live
// allocations count 0 (the driver freed them); a later ResetFaulted
// leaves it alone and does not count it.
func ResetFaulted() (int, error) {
	openMu.Lock()
	devs := make([]*Device, 0, len(openDevices))
	for d := range openDevices {
		devs = append(devs, d)
	}
	openMu.Unlock()
	n := 0
	var first error
	for _, d := range devs {
		reset, err := d.resetIfFaulted()
		if reset {
			n++
		}
		if err != nil && first == nil {
			first = err
		}
	}
	return n, first
}

// resetIfFaulted resets d's context when a sticky error poisoned it. A
// device reset before has nothing left to release: it is left alone.
func (d *Device) resetIfFaulted() (bool, error) {
	d.mu.Lock()
	done := d.reset != nil
	d.mu.Unlock()
	if done {
		return false, nil
	}
	var cause error
	err := d.Do(func(x *Exec) error {
		r := d.drv.CtxSynchronize()
		if !cudaerr.IsStickyCode(int(r)) {
			return nil
		}
		if err := checkWith(d.drv, "cuDevicePrimaryCtxReset", d.drv.DevicePrimaryCtxReset(d.dev)); err != nil {
			return err
		}
		cause = checkWith(d.drv, "cuCtxSynchronize", r)
		return nil
	})
	if err != nil || cause == nil {
		if err != nil {
			err = fmt.Errorf("cudabind: device %d: reset after a sticky error: %w", d.info.Ordinal, err)
		}
		return false, err
	}
	d.mu.Lock()
	d.reset = cause
	d.mu.Unlock()
	for i := range d.live {
		d.live[i].Store(0)
	}
	return true, nil
}

// run is the executor: it locks its OS thread, makes the primary context
// current there and serves tasks until Close.
func (d *Device) run(started chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	d.tid.Store(int64(gettid()))
	ctx, r := d.drv.DevicePrimaryCtxRetain(d.dev)
	if err := checkWith(d.drv, "cuDevicePrimaryCtxRetain", r); err != nil {
		started <- err
		return
	}
	if err := checkWith(d.drv, "cuCtxSetCurrent", d.drv.CtxSetCurrent(ctx)); err != nil {
		d.drv.DevicePrimaryCtxRelease(d.dev)
		started <- err
		return
	}
	d.ctx = ctx
	started <- nil
	for {
		select {
		case t := <-d.work:
			t.done <- d.runTask(t.f)
		case <-d.stop:
			return
		}
	}
}

// runTask runs f on the executor with the Exec marked active, turning a
// panic into an error.
func (d *Device) runTask(f func(*Exec) error) (err error) {
	x := &d.exec
	x.active.Store(true)
	defer func() {
		x.active.Store(false)
		if p := recover(); p != nil {
			err = fmt.Errorf("cudabind: panic in Device.Do task: %v\n%s", p, debug.Stack())
		}
	}()
	return f(x)
}

// Info returns the device's description.
func (d *Device) Info() DeviceInfo { return d.info }

// Do runs f on the device's executor thread with the context current and
// returns f's error. A timed section (events, launches, elapsed) belongs in
// one f so that no goroutine hand-off lands inside the measurement. Do is
// re-entrant: called from inside f it runs the nested function inline.
func (d *Device) Do(f func(x *Exec) error) error {
	if d == nil {
		return fmt.Errorf("cudabind: Do on a nil *Device")
	}
	if f == nil {
		return fmt.Errorf("cudabind: Do with a nil function")
	}
	if tid := gettid(); tid > 0 && int64(tid) == d.tid.Load() && d.exec.active.Load() {
		return f(&d.exec)
	}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return fmt.Errorf("cudabind: device %d is closed", d.info.Ordinal)
	}
	if d.reset != nil {
		d.mu.Unlock()
		return fmt.Errorf("cudabind: device %d was reset after a sticky error and cannot be used again in this process: %w", d.info.Ordinal, d.reset)
	}
	t := task{f: f, done: make(chan error, 1)}
	// Send while holding mu so that Close cannot stop the executor between
	// the check and the hand-off.
	select {
	case d.work <- t:
	case <-d.stop:
		d.mu.Unlock()
		return fmt.Errorf("cudabind: device %d is closed", d.info.Ordinal)
	}
	d.mu.Unlock()
	return <-t.done
}

// LiveAllocations counts what was created through this device and not yet
// released: device and pinned host buffers, modules, textures, streams,
// events and graphs.
func (d *Device) LiveAllocations() int {
	n := int64(0)
	for i := range d.live {
		n += d.live[i].Load()
	}
	return int(n)
}

// LiveByKind describes the live allocations per kind, for test messages.
func (d *Device) LiveByKind() map[string]int {
	m := map[string]int{}
	for i := range d.live {
		if v := d.live[i].Load(); v != 0 {
			m[kindNames[i]] = int(v)
		}
	}
	return m
}

// Close stops the executor and releases the primary context. Allocations still live stay owned by the context, which
// the driver destroys when its last retain is released. Do not close the
// device returned by Default.
func (d *Device) Close() error {
	if d == nil {
		return nil
	}
	var err error
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return err
	}
	d.closed = true
	openMu.Lock()
	delete(openDevices, d)
	openMu.Unlock()
	// Release the context on the executor (a reset one too: the retain
	// outlives the reset), then stop it.
	done := make(chan error, 1)
	d.work <- task{f: func(x *Exec) error {
		return checkWith(d.drv, "cuDevicePrimaryCtxRelease", d.drv.DevicePrimaryCtxRelease(d.dev))
	}, done: done}
	if e := <-done; err == nil {
		err = e
	}
	close(d.stop)
	return err
}
