/* nvml-standin.h: the four NVML calls BabelStream's CUDA version makes, for a toolkit without
 * NVML's header (build-babelstream.sh puts it on the include path as nvml.h only then). They only
 * feed its line on the memory's peak, which then reads 0 MHz; its kernels and timings are its own. */
#ifndef ROT_NVML_STANDIN_H
#define ROT_NVML_STANDIN_H

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef enum { NVML_CLOCK_GRAPHICS, NVML_CLOCK_SM, NVML_CLOCK_MEM } nvmlClockType_t;
#define NVML_SUCCESS 0

static inline nvmlReturn_t nvmlInit(void)
{
	return NVML_SUCCESS;
}

static inline const char *nvmlErrorString(nvmlReturn_t r)
{
	(void)r;
	return "NVML stand-in";
}

static inline nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *bus, nvmlDevice_t *d)
{
	(void)bus;
	*d = 0;
	return NVML_SUCCESS;
}

static inline nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, nvmlClockType_t t, unsigned *mhz)
{
	(void)d;
	(void)t;
	*mhz = 0;
	return NVML_SUCCESS;
}

#endif
