/* protocol: a point's result records written in the words protocol.h and vocabulary.h declare
 * (record kinds, status words, meta keys, run keys), so the core spells none of them itself. */
#include "protocol.h"

#include <stdarg.h>

static const char *const record_words[RECORD_COUNT] = {
#define X(id, word, syntax, meaning) [RECORD_##id] = word,
    PROTOCOL_RECORDS(X)
#undef X
};

static const char *const meta_names[META_COUNT] = {
#define X(id, name, type, unit, side, meaning) [META_##id] = name,
    PROTOCOL_META(X)
#undef X
};

static const char *const run_keys[RUNKEY_COUNT] = {
#define X(id, key, type, unit, meaning) [RUNKEY_##id] = key,
    PROTOCOL_RUN_KEYS(X)
#undef X
};

static const char *const sample_keys[SAMPLEKEY_COUNT] = {
#define X(id, key, record, meaning) [SAMPLEKEY_##id] = key,
    PROTOCOL_SAMPLE_KEYS(X)
#undef X
};

const char *protocol_record_word(enum protocol_record r)
{
	return r < RECORD_COUNT ? record_words[r] : "?";
}

const char *protocol_meta_name(enum protocol_meta k)
{
	return k < META_COUNT ? meta_names[k] : "?";
}

const char *protocol_run_key(enum protocol_run_key k)
{
	return k < RUNKEY_COUNT ? run_keys[k] : "?";
}

void protocol_record(FILE *out, enum protocol_record r)
{
	fputs(protocol_record_word(r), out);
	fputc(' ', out);
}

void protocol_status(FILE *out, int ok)
{
	protocol_record(out, RECORD_STATUS);
	fputs(ok ? PROTOCOL_OK : PROTOCOL_FAILED, out);
	fputc('\n', out);
}

/* "meta NAME VALUE" (a line), NAME given in full. */
static void vmeta(FILE *out, const char *name, const char *fmt, va_list ap)
{
	protocol_record(out, RECORD_META);
	fputs(name, out);
	fputc(' ', out);
	vfprintf(out, fmt, ap);
	fputc('\n', out);
}

void protocol_meta(FILE *out, enum protocol_meta k, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmeta(out, protocol_meta_name(k), fmt, ap);
	va_end(ap);
}

void protocol_meta_at(FILE *out, enum protocol_meta k, int i, const char *fmt, ...)
{
	char name[128];
	snprintf(name, sizeof name, protocol_meta_name(k), i);
	va_list ap;
	va_start(ap, fmt);
	vmeta(out, name, fmt, ap);
	va_end(ap);
}

void protocol_meta_named(FILE *out, const char *name, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmeta(out, name, fmt, ap);
	va_end(ap);
}

void protocol_run(FILE *out, const struct protocol_run *r)
{
	fputs(protocol_record_word(RECORD_RUN), out);
	protocol_run_value(out, RUNKEY_NS, "%.0f", r->ns);
	protocol_run_value(out, RUNKEY_TSC, "%llu", r->tsc);
	protocol_run_value(out, RUNKEY_REPS, "%ld", r->reps);
	protocol_run_value(out, RUNKEY_CPUS, "%s", r->cpus);
	protocol_run_value(out, RUNKEY_MIG, "%d", r->mig);
	protocol_run_value(out, RUNKEY_VCSW, "%ld", r->vcsw);
	protocol_run_value(out, RUNKEY_IVCSW, "%ld", r->ivcsw);
	protocol_run_value(out, RUNKEY_DISTURBED, "%d", r->disturbed);
}

void protocol_run_value(FILE *out, enum protocol_run_key k, const char *fmt, ...)
{
	va_list ap;
	fprintf(out, " %s=", protocol_run_key(k));
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
}

void protocol_run_value_at(FILE *out, enum protocol_run_key k, int i, const char *fmt, ...)
{
	va_list ap;
	fputc(' ', out);
	fprintf(out, protocol_run_key(k), i);
	fputc('=', out);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
}

void protocol_sample_value(FILE *out, enum protocol_sample_key k, const char *fmt, ...)
{
	va_list ap;
	fprintf(out, " %s=", k < SAMPLEKEY_COUNT ? sample_keys[k] : "?");
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
}
