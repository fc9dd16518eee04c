/* markers: librot-count.so, the marker recorder of rot's counting pass: a program's markers
 * (rot/markers.h, found through ROT_MARKERS) become rot's counting tool's region requests.
 * Declared work is the timed runs' business, not the count's: it is taken and dropped. */
#include "../include/rot/markers.h"
#include "counts.h"
#include "valgrind.h"

static void region_begin(const char *name)
{
	VALGRIND_DO_CLIENT_REQUEST_STMT(COUNT_REQUEST_BEGIN, name, 0, 0, 0, 0);
}

static void region_end(const char *name)
{
	VALGRIND_DO_CLIENT_REQUEST_STMT(COUNT_REQUEST_END, name, 0, 0, 0, 0);
}

static void declared(double a, double b)
{
	(void)a, (void)b;
}

static void declared_one(double a)
{
	(void)a;
}

static const struct rot_markers_api api = {ROT_MARKERS_VERSION, region_begin, region_end, declared,
					   declared_one,	declared_one};

__attribute__((visibility("default"))) const struct rot_markers_api *rot_markers_api(int version)
{
	return version == ROT_MARKERS_VERSION ? &api : 0;
}
