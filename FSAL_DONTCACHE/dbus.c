// SPDX-License-Identifier: LGPL-3.0-or-later
/* FSAL_DONTCACHE figures over ganesha's DBus stats interface: the module's
 * fsal_extract_stats and fsal_reset_stats, which ganesha calls for
 *   org.ganesha.nfsd.exportstats.GetFSALStats string:DONTCACHE
 *   org.ganesha.nfsd.exportstats.ResetStats (every FSAL with stats, and
 *   DisableStats string:fsal / string:all)
 * once FSAL stats are enabled (EnableStats string:fsal, or
 * NFS_CORE_PARAM { Enable_FSAL_Stats = true; }). The same in ganesha 4.3 and
 * 6.5: the two ops, the reply ganesha builds around them and libdbus-1.
 *
 * Reply (ganesha writes the first two):
 *   (b status, s "OK")  (t sec, t nsec) of the stats start
 *   s "DONTCACHE"
 *   a(qsa{ss}a{st}a{sd}) one struct per export: export id, path, then the
 *       engine's JSON figures (dcio_export_stats_json, keys in io/README.md)
 *       flattened to dotted keys: strings and booleans ("write_mode",
 *       "fallback"), integers ("writes.dontcache.bytes",
 *       "group_commit.syscalls_saved", "inflight.peak", "errors.EIO"),
 *       fractions ("latency.commit.p99_us", "flusher.writes_per_pass")
 *   s "OK"
 * (ganesha's introspection data says a(stddd) for the array, the layout of
 * FSAL_GPFS's per-operation figures; no client checks it, and dbus-send and
 * python-dbus read the real signature.) */
#include "dc_int.h"

#include <dbus/dbus.h>
#include <errno.h>
#include <stdlib.h>

enum leaf_kind { LEAF_STR, LEAF_INT, LEAF_REAL };

/* A failed append (libdbus: out of memory) stops the reply's content; a
 * container opened is then abandoned, never closed half-written. */
struct out {
	bool ok;
};

static void put(struct out *o, DBusMessageIter *it, int type, const void *v)
{
	if (o->ok && !dbus_message_iter_append_basic(it, type, v))
		o->ok = false;
}

static bool open_c(struct out *o, DBusMessageIter *it, int type,
		   const char *sig, DBusMessageIter *sub)
{
	if (o->ok && !dbus_message_iter_open_container(it, type, sig, sub))
		o->ok = false;
	return o->ok;
}

/* only for a container open_c opened */
static void close_c(struct out *o, DBusMessageIter *it, DBusMessageIter *sub)
{
	if (!o->ok)
		dbus_message_iter_abandon_container(it, sub);
	else if (!dbus_message_iter_close_container(it, sub))
		o->ok = false;
}

/* DBus strings must be UTF-8: an export path need not be. */
static void put_str(struct out *o, DBusMessageIter *it, const char *s)
{
	char buf[1024];
	size_t i;

	if (dbus_validate_utf8(s, NULL)) {
		put(o, it, DBUS_TYPE_STRING, &s);
		return;
	}
	for (i = 0; s[i] != '\0' && i < sizeof(buf) - 1; i++)
		buf[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
	buf[i] = '\0';
	s = buf;
	put(o, it, DBUS_TYPE_STRING, &s);
}

/* One pass over the engine's JSON object: every leaf of one kind becomes a
 * dict entry named by its dotted path. The JSON is the engine's own output
 * (objects, strings, numbers, booleans); anything else stops the pass. */
struct flat {
	const char *p;
	char key[256];
	enum leaf_kind kind;
	struct out *o;
	DBusMessageIter *dict;
	bool bad;
};

static void skip_ws(struct flat *f)
{
	while (*f->p == ' ' || *f->p == '\n' || *f->p == '\t' || *f->p == '\r')
		f->p++;
}

/* a JSON string into out (escapes \" \\ \/ and \u00XX, what the engine
 * writes; other \u as '?'), truncated to outlen */
static bool parse_string(struct flat *f, char *out, size_t outlen)
{
	size_t n = 0;
	char c;

	if (*f->p != '"')
		return false;
	f->p++;
	while ((c = *f->p) != '"') {
		if (c == '\0')
			return false;
		f->p++;
		if (c == '\\') {
			c = *f->p++;
			if (c == 'u') {
				char hex[5] = { 0 };
				unsigned long v;

				for (int i = 0; i < 4; i++) {
					if (f->p[i] == '\0')
						return false;
					hex[i] = f->p[i];
				}
				f->p += 4;
				v = strtoul(hex, NULL, 16);
				c = v < 0x80 ? (char)v : '?';
			} else if (c == 'n') {
				c = '\n';
			} else if (c == 't') {
				c = '\t';
			} else if (c != '"' && c != '\\' && c != '/') {
				return false;
			}
		}
		if (n + 1 < outlen)
			out[n++] = c;
	}
	f->p++;
	out[n] = '\0';
	return true;
}

static void leaf(struct flat *f, enum leaf_kind kind, const void *v, int type)
{
	DBusMessageIter e;
	const char *k = f->key;

	if (kind != f->kind ||
	    !open_c(f->o, f->dict, DBUS_TYPE_DICT_ENTRY, NULL, &e))
		return;
	put(f->o, &e, DBUS_TYPE_STRING, &k);
	if (type == DBUS_TYPE_STRING)
		put_str(f->o, &e, v);
	else
		put(f->o, &e, type, v);
	close_c(f->o, f->dict, &e);
}

static bool parse_value(struct flat *f);

static bool parse_object(struct flat *f)
{
	size_t len = strlen(f->key);
	char name[128];

	f->p++;
	skip_ws(f);
	if (*f->p == '}') {
		f->p++;
		return true;
	}
	for (;;) {
		skip_ws(f);
		if (!parse_string(f, name, sizeof(name)))
			return false;
		if ((size_t)snprintf(f->key + len, sizeof(f->key) - len, "%s%s",
				     len ? "." : "",
				     name) >= sizeof(f->key) - len)
			return false;
		skip_ws(f);
		if (*f->p != ':')
			return false;
		f->p++;
		if (!parse_value(f))
			return false;
		f->key[len] = '\0';
		skip_ws(f);
		if (*f->p == '}') {
			f->p++;
			return true;
		}
		if (*f->p != ',')
			return false;
		f->p++;
	}
}

static bool parse_value(struct flat *f)
{
	char s[1024];
	const char *start;
	bool real = false;

	skip_ws(f);
	switch (*f->p) {
	case '{':
		return parse_object(f);
	case '"':
		if (!parse_string(f, s, sizeof(s)))
			return false;
		leaf(f, LEAF_STR, s, DBUS_TYPE_STRING);
		return true;
	case 't':
	case 'f':
		if (strncmp(f->p, "true", 4) == 0) {
			f->p += 4;
			leaf(f, LEAF_STR, "true", DBUS_TYPE_STRING);
		} else if (strncmp(f->p, "false", 5) == 0) {
			f->p += 5;
			leaf(f, LEAF_STR, "false", DBUS_TYPE_STRING);
		} else {
			return false;
		}
		return true;
	}
	start = f->p;
	while ((*f->p >= '0' && *f->p <= '9') || *f->p == '.' || *f->p == 'e' ||
	       *f->p == 'E' || *f->p == '-' || *f->p == '+') {
		if (*f->p < '0' || *f->p > '9')
			real = true;
		f->p++;
	}
	if (f->p == start)
		return false;
	if (real) {
		double d = strtod(start, NULL);

		leaf(f, LEAF_REAL, &d, DBUS_TYPE_DOUBLE);
	} else {
		dbus_uint64_t u = strtoull(start, NULL, 10);

		leaf(f, LEAF_INT, &u, DBUS_TYPE_UINT64);
	}
	return true;
}

/* one dict of the export's struct: every leaf of one kind */
static bool put_dict(struct out *o, DBusMessageIter *st, const char *json,
		     enum leaf_kind kind)
{
	static const char *const sig[] = { "{ss}", "{st}", "{sd}" };
	struct flat f = { .p = json, .kind = kind, .o = o };
	DBusMessageIter dict;
	bool parsed;

	if (!open_c(o, st, DBUS_TYPE_ARRAY, sig[kind], &dict))
		return false;
	f.dict = &dict;
	skip_ws(&f);
	parsed = *f.p == '{' && parse_object(&f);
	close_c(o, st, &dict);
	return parsed;
}

static bool put_export(struct out *o, DBusMessageIter *arr, struct dc_export *x)
{
	DBusMessageIter st;
	dbus_uint16_t id = x->export_id;
	char *json = NULL;
	size_t len = 0;
	bool parsed = true;
	FILE *mf;

	mf = open_memstream(&json, &len);
	if (mf == NULL) {
		LogFullDebug(
			COMPONENT_FSAL,
			"DONTCACHE export %u: GetFSALStats: open_memstream: %s",
			x->export_id, strerror(errno));
		return false;
	}
	dcio_export_stats_json(x->io, mf);
	if (fclose(mf) != 0) {
		LogFullDebug(
			COMPONENT_FSAL,
			"DONTCACHE export %u: GetFSALStats: the stats JSON: %s",
			x->export_id, strerror(errno));
		free(json);
		return false;
	}
	if (open_c(o, arr, DBUS_TYPE_STRUCT, NULL, &st)) {
		put(o, &st, DBUS_TYPE_UINT16, &id);
		put_str(o, &st, x->path);
		for (int k = LEAF_STR; k <= LEAF_REAL; k++)
			parsed &= put_dict(o, &st, json, k);
		close_c(o, arr, &st);
	}
	if (!parsed || !o->ok)
		LogFullDebug(COMPONENT_FSAL,
			     "DONTCACHE export %u: GetFSALStats: %s",
			     x->export_id,
			     !o->ok ? "a DBus append failed (out of memory)"
				    : "the stats JSON did not parse");
	free(json);
	return parsed;
}

/**
 * @brief The module's statistics for ganesha's DBus stats
 *
 * @param[in] fsal_hdl The module
 * @param[in] iter The DBus reply the figures are appended to
 */
static void dc_extract_stats(struct fsal_module *const fsal_hdl, void *iter)
{
	DBusMessageIter *it = iter, arr;
	struct out o = { .ok = true };
	const char *name = DC_NAME, *msg = "OK";
	static struct dcio_ratelimit rl;
	struct glist_head *n;
	bool parsed = true;
	uint64_t supp;

	put(&o, it, DBUS_TYPE_STRING, &name);
	if (open_c(&o, it, DBUS_TYPE_ARRAY, "(qsa{ss}a{st}a{sd})", &arr)) {
		PTHREAD_MUTEX_lock(&DC.lock);
		glist_for_each(n, &DC.exports) {
			struct dc_export *x =
				glist_entry(n, struct dc_export, node);

			if (x->io != NULL)
				parsed &= put_export(&o, &arr, x);
		}
		PTHREAD_MUTEX_unlock(&DC.lock);
		close_c(&o, it, &arr);
	}
	if (!parsed)
		msg = "incomplete: an export's figures could not be read";
	put(&o, it, DBUS_TYPE_STRING, &msg);
	if ((!o.ok || !parsed) && dcio_ratelimit(&rl, 60, &supp))
		LogWarn(COMPONENT_FSAL,
			"DONTCACHE: GetFSALStats reply incomplete: %s (%" PRIu64
			" similar messages suppressed)",
			o.ok ? "an export's figures could not be read"
			     : "out of memory",
			supp);
}

/**
 * @brief Reset the module's statistics
 *
 * @param[in] fsal_hdl The module
 */
static void dc_reset_stats(struct fsal_module *const fsal_hdl)
{
	struct glist_head *n;

	PTHREAD_MUTEX_lock(&DC.lock);
	glist_for_each(n, &DC.exports) {
		struct dc_export *x = glist_entry(n, struct dc_export, node);

		if (x->io != NULL)
			dcio_export_stats_reset(x->io);
		else
			LogFullDebug(
				COMPONENT_FSAL,
				"DONTCACHE export %u: ResetStats: no engine export (not started)",
				x->export_id);
	}
	PTHREAD_MUTEX_unlock(&DC.lock);
	LogEvent(COMPONENT_FSAL, "DONTCACHE: stats reset over DBus");
}

/* ganesha offers GetFSALStats and calls reset only for a module whose
 * stats pointer is set; the figures are the engine's, so it stays empty. */
static struct fsal_stats dc_fsal_stats;

void dc_dbus_init(struct fsal_module *fsal_hdl)
{
	fsal_hdl->stats = &dc_fsal_stats;
	fsal_hdl->m_ops.fsal_extract_stats = dc_extract_stats;
	fsal_hdl->m_ops.fsal_reset_stats = dc_reset_stats;
}
