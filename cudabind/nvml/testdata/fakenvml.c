/* fakenvml.c: a stand-in for libnvidia-ml.so.1 with the real prototypes of
 * the entry points package nvml binds, for tests on hosts without NVIDIA's
 * driver. It knows one device, UUID "GPU-fake", at 1500 of 1980 MHz, 250 W
 * and 45 C. Built with -DENERGY it also exports
 * nvmlDeviceGetTotalEnergyConsumption, whose reading and result the test
 * sets (fake_set_energy), and nvmlDeviceGetComputeRunningProcesses_v3,
 * whose count of processes the test sets (fake_set_processes); without, it
 * is a library from before the energy counter and the process list. */
#include <string.h>

typedef void *nvmlDevice_t;
static int device = 1;

int nvmlInit_v2(void) { return 0; }

const char *nvmlErrorString(int r) {
    switch (r) {
    case 0: return "Success";
    case 3: return "Not Supported";
    case 6: return "Not Found";
    }
    return "Unknown Error";
}

int nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *h) {
    if (strcmp(uuid, "GPU-fake") != 0) return 6;
    *h = &device;
    return 0;
}

static int known(nvmlDevice_t h) { return h == (nvmlDevice_t)&device; }

int nvmlDeviceGetClockInfo(nvmlDevice_t h, unsigned clock, unsigned *v) {
    if (!known(h) || clock != 1) return 2;
    *v = 1500;
    return 0;
}

int nvmlDeviceGetMaxClockInfo(nvmlDevice_t h, unsigned clock, unsigned *v) {
    if (!known(h) || clock != 1) return 2;
    *v = 1980;
    return 0;
}

int nvmlDeviceGetPowerUsage(nvmlDevice_t h, unsigned *mw) {
    if (!known(h)) return 2;
    *mw = 250000;
    return 0;
}

int nvmlDeviceGetTemperature(nvmlDevice_t h, unsigned sensor, unsigned *c) {
    if (!known(h) || sensor != 0) return 2;
    *c = 45;
    return 0;
}

#ifdef ENERGY
static unsigned long long energy_mj;
static int energy_result;

/* fake_set_energy sets the next readings of the counter and the result
 * the call returns (0, or an nvmlReturn_t such as 3, NOT_SUPPORTED). */
void fake_set_energy(unsigned long long mj, int result) {
    energy_mj = mj;
    energy_result = result;
}

int nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t h, unsigned long long *mj) {
    if (!known(h)) return 2;
    if (energy_result != 0) return energy_result;
    *mj = energy_mj;
    return 0;
}

typedef struct {
    unsigned pid;
    unsigned long long usedGpuMemory;
    unsigned gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;

static unsigned processes;

/* fake_set_processes sets how many processes the next call lists. */
void fake_set_processes(unsigned n) { processes = n; }

/* As NVML: the records fill up to *count of them, *count becomes the
 * number of processes, and too few records is INSUFFICIENT_SIZE (7). */
int nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t h, unsigned *count, nvmlProcessInfo_t *infos) {
    if (!known(h)) return 2;
    unsigned room = *count;
    *count = processes;
    if (processes > room) return 7;
    for (unsigned i = 0; i < processes; i++) {
        infos[i].pid = 1000 + i;
        infos[i].usedGpuMemory = 1ull << 30;
        infos[i].gpuInstanceId = infos[i].computeInstanceId = 0xffffffffu;
    }
    return 0;
}
#endif
