/* plugin: the shared library tests/loops/hostile.c opens with dlopen (built as
 * hostile-plugin.so beside it): a loop of N fp64 adds. */
__attribute__((visibility("default"))) double plugin_adds(long n)
{
	double s = 0, d = 0.5;
	for (long i = 0; i < n; i++) /* LOOP plugin */
		s += d;
	return s;
}
