// SPDX-License-Identifier: MIT
/*
 * --compat: the report as text (header, rows, summary) or as JSON lines
 * (one compat_header, one compat_row per row, one compat_summary).
 */
#include <stdio.h>
#include <string.h>

#include "report_rows.h"

static const char *version_str(uint32_t v, char *buf, size_t n)
{
	if (!v)
		snprintf(buf, n, "any");
	else
		snprintf(buf, n, "%u.%02u.%02u", v / 1000000, v / 1000 % 1000, v % 1000);
	return buf;
}

/* How the node was chosen, plainly. */
static const char *match_str(const struct ct_compat *c, char *buf, size_t n)
{
	if (!c->driver)
		snprintf(buf, n, "the trace names no driver: the newest supported node");
	else if (c->match == CT_GV_EXACT)
		snprintf(buf, n, "exact");
	else if (c->match == CT_GV_ANCESTOR)
		snprintf(buf, n, "approximate: the nearest older node on the %u branch",
			 c->driver / 1000000);
	else if (c->match == CT_GV_NO_BRANCH)
		snprintf(buf, n, "none: nvproxy has no node for the %u branch at or below this "
			 "driver; rows judged against the nearest node", c->driver / 1000000);
	else
		snprintf(buf, n, "one table for every driver: this gVisor has no per-driver tree");
	return buf;
}

/* What runsc needs to start with this driver. */
static const char *runsc_str(const struct ct_compat *c, char *buf, size_t n)
{
	char v[32];

	if (c->match == CT_GV_ANY)
		snprintf(buf, n, "no driver check in this gVisor");
	else if (c->match == CT_GV_EXACT && c->node->supported)
		snprintf(buf, n, "accepts this driver as it is");
	else if (c->match == CT_GV_EXACT)
		snprintf(buf, n, "refuses this driver unless --nvproxy-allow-unsupported-driver "
			 "(an intermediate node)");
	else
		snprintf(buf, n, "refuses this driver (not in nvproxy's table) unless "
			 "--nvproxy-driver-version=%s%s", version_str(c->node->version, v, sizeof(v)),
			 c->node->supported ? "" : " --nvproxy-allow-unsupported-driver");
	return buf;
}

/* "graphics,video" -> "graphics or video": any one of them enables it. */
static const char *any_of(const struct ct_compat *c, uint16_t caps, char *buf, size_t n)
{
	char list[128], *p = list, *comma;
	size_t used = 0;

	ct_gv_caps_str(c->snap, caps, list, sizeof(list));
	buf[0] = '\0';
	while (p && used < n) {
		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? " or " : "", p);
		p = comma ? comma + 1 : NULL;
	}
	return buf;
}

static const char *verdict_str(const struct ct_compat *c, const struct row *r, char *buf,
			       size_t n)
{
	char caps[128];

	if (r->verdict == V_NEEDS_CAP)
		snprintf(buf, n, "needs capability %s", any_of(c, r->caps_needed, caps, sizeof(caps)));
	else if (r->verdict == V_UNSUPPORTED)
		snprintf(buf, n, "unsupported (nvproxy: %s)",
			 r->kind < RK_MMAP && c->snap->refusal[r->kind] ? c->snap->refusal[r->kind]
								       : "EINVAL");
	else
		snprintf(buf, n, "%s", ct_compat_verdict_names[r->verdict]);
	return buf;
}

/* The nodes that have it: "535.104.05", or "535.104.05 to 595.71.05" where
 * a newer node dropped it. */
static const char *nodes_str(const struct row *r, char *buf, size_t n)
{
	char a[32], b[32];

	if (!r->first)
		snprintf(buf, n, "-");
	else if (r->dropped && r->last)
		snprintf(buf, n, "%s to %s", version_str(r->first->version, a, sizeof(a)),
			 version_str(r->last->version, b, sizeof(b)));
	else
		snprintf(buf, n, "%s", version_str(r->first->version, a, sizeof(a)));
	return buf;
}

static const char *number_str(const struct row *r, char *buf, size_t n)
{
	if (r->kind == RK_MMAP)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "0x%x", r->number);
	return buf;
}

/* --- text ------------------------------------------------------------------ */

/* A device path or comm from the trace, with every byte that is not
 * printable ASCII as \xNN: a trace must not forge lines or drive the
 * terminal. */
const char *ct_compat_safe(const char *s, char *buf, size_t n)
{
	size_t used = 0;

	for (; *s && used + 5 < n; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch < 0x20 || ch >= 0x7f || ch == '\\')
			used += (size_t)snprintf(buf + used, n - used, "\\x%02x", ch);
		else
			buf[used++] = (char)ch;
	}
	buf[used] = '\0';
	return buf;
}

static void text_header(const struct ct_compat *c, FILE *f, uint16_t need, uint16_t extra)
{
	const struct ct_gv_snapshot *s = c->snap;
	char v[32], buf[256], caps[128], needs[128], libs[256];

	fprintf(f, "gVisor nvproxy compatibility (cudatrace --compat=gvisor)\n");
	fprintf(f, "  driver:        %s\n", c->driver ? version_str(c->driver, v, sizeof(v))
						    : "unknown (no driver line in the trace header)");
	fprintf(f, "  gVisor data:   %s (github.com/google/gvisor commit %.12s, %s; %s)\n", s->id,
		s->commit, s->date, s->role);
	fprintf(f, "  nvproxy node:  %s (%s)\n", version_str(c->node->version, v, sizeof(v)),
		match_str(c, buf, sizeof(buf)));
	fprintf(f, "  runsc:         %s\n", runsc_str(c, buf, sizeof(buf)));
	if (!s->ncaps) {
		fprintf(f, "  capabilities:  none in this gVisor (every entry is open)\n");
	} else {
		fprintf(f, "  capabilities:  %s (%s); the trace needs: %s%s%s%s\n",
			ct_gv_caps_str(s, c->caps, caps, sizeof(caps)),
			c->caps_given ? "--compat-caps" : "nvproxy's default",
			need ? ct_gv_caps_str(s, need, needs, sizeof(needs)) : "none",
			extra ? " (" : "", extra ? ct_compat_libs_str(c, extra, libs, sizeof(libs)) : "",
			extra ? ")" : "");
	}
	ct_compat_text_asked(c, f);
	if (c->match != CT_GV_EXACT && c->match != CT_GV_ANY)
		fprintf(f, "  ioctl_sniffer: would not run (it needs a driver in nvproxy's table)\n");
	fprintf(f, "\n");
}

/* What the row's columns cannot say: where nvproxy dropped the entry, and
 * which escape a pass-through control waits on. */
static void text_row_notes(const struct ct_compat *c, const struct row *r, FILE *f)
{
	char v[32], caps[128];

	if (ct_compat_refused(r->verdict))
		ct_compat_text_callers(r, f);

	if (r->dropped)
		fprintf(f, "%18s ^ nvproxy drops it at its %s node: refused with a driver from "
			"there on\n", "", version_str(r->dropped->version, v, sizeof(v)));
	if (r->via && r->verdict == V_NEEDS_CAP)
		fprintf(f, "%18s ^ forwarded unread, once its escape %s is let in: that needs %s\n",
			"", r->via->name, any_of(c, r->via->caps, caps, sizeof(caps)));
}

static void text_rows(const struct ct_compat *c, FILE *f)
{
	size_t i;

	fprintf(f, "%-18s %-8s %-10s %-44s %-44s %7s  %-20s %-22s %-11s %s\n", "device", "kind",
		"number", "cudatrace name", "nvproxy name", "calls", "first pid/comm",
		"host answered", "since", "verdict");
	for (i = 0; i < c->nrows; i++) {
		const struct row *r = &c->rows[i];
		char num[16], who[96], since[80], verdict[160], answer[80], dev[4 * ROW_DEV_MAX + 1];
		char comm[4 * sizeof(r->first_comm) + 1];
		const char *note = ct_compat_sniffer_note(r);

		snprintf(who, sizeof(who), "%u/%s", r->first_pid,
			 ct_compat_safe(r->first_comm, comm, sizeof(comm)));
		if (r->failed)
			snprintf(answer, sizeof(answer), "%s x%llu", r->answer,
				 (unsigned long long)r->failed);
		else
			snprintf(answer, sizeof(answer), "ok");
		fprintf(f, "%-18s %-8s %-10s %-44s %-44s %7llu  %-20s %-22s %-11s %s\n",
			ct_compat_safe(r->dev, dev, sizeof(dev)),
			ct_compat_kind_names[r->kind], number_str(r, num, sizeof(num)),
			r->ours ? r->ours : "-", r->op ? r->op->name : "-",
			(unsigned long long)r->calls, who, answer, nodes_str(r, since, sizeof(since)),
			verdict_str(c, r, verdict, sizeof(verdict)));
		if (note)
			fprintf(f, "%18s ^ %s\n", "", note);
		text_row_notes(c, r, f);
	}
}

/* The summary's counts, per kind of row and in all, for text and JSON. */
struct tally {
	unsigned long long rows[RK_COUNT], calls[RK_COUNT], refused[RK_COUNT];
	size_t bad, notes;
	size_t effect[3];             /* refused rows by enum refusal_effect */
};

static void count_rows(const struct ct_compat *c, struct tally *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < c->nrows; i++) {
		const struct row *r = &c->rows[i];

		t->rows[r->kind]++;
		t->calls[r->kind] += r->calls;
		t->refused[r->kind] += ct_compat_refused(r->verdict);
		t->bad += ct_compat_refused(r->verdict);
		t->notes += ct_compat_sniffer_note(r) != NULL;
		if (ct_compat_refused(r->verdict))
			t->effect[ct_compat_effect(r)]++;
	}
}

/* More capabilities would help: under runsc a capability is enabled only
 * if the container asks for it and runsc allows it (runsc refuses to start
 * a container that asks for one it does not allow). */
static void text_enable(const struct ct_compat *c, FILE *f, uint16_t need)
{
	const struct ct_gv_snapshot *s = c->snap;
	char caps[128];

	if (!(need & ~c->caps) || !s->caps_flag || !s->caps_env)
		return;
	ct_gv_caps_str(s, need | c->caps, caps, sizeof(caps));
	fprintf(f, "more capabilities would help: %s: the container must ask for them (%s=%s) "
		"and runsc must allow them (%s=%s; its default is %s)\n", caps, s->caps_env, caps,
		s->caps_flag, caps, s->caps_flag_default ? s->caps_flag_default : "none");
}

static void text_summary(const struct ct_compat *c, FILE *f, uint16_t need)
{
	struct tally t;
	char caps[128];
	int k;

	count_rows(c, &t);
	fprintf(f, "\nsummary (rows, calls, refused rows):");
	for (k = 0; k < RK_COUNT; k++)
		fprintf(f, "%s %s %llu/%llu/%llu", k ? "," : "", ct_compat_kind_names[k], t.rows[k],
			t.calls[k], t.refused[k]);
	if (c->snap->ncaps)
		fprintf(f, "\nclean under %s: %s\n",
			ct_gv_caps_str(c->snap, c->caps, caps, sizeof(caps)), t.bad ? "no" : "yes");
	else
		fprintf(f, "\nclean (no capabilities in this gVisor): %s\n", t.bad ? "no" : "yes");
	if (t.bad)
		fprintf(f, "refused rows: %zu: %zu not fatal (a known caller carries on without "
			"them), %zu fatal, %zu of unknown effect\n", t.bad, t.effect[RE_NOT_FATAL],
			t.effect[RE_FATAL], t.effect[RE_UNKNOWN]);
	ct_compat_text_asked_summary(c, f);
	text_enable(c, f, need);
	fprintf(f, "ioctl_sniffer would disagree on %zu row%s%s\n", t.notes,
		t.notes == 1 ? "" : "s",
		c->have_stacks ? "" : " (a trace without -k stacks cannot show calls that "
				      "bypass libc's ioctl())");
}

/* --- JSON ------------------------------------------------------------------ */

void ct_compat_json_str(FILE *f, const char *key, const char *s)
{
	fprintf(f, ",\"%s\":", key);
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)   /* bytes, not UTF-8: as Latin-1 */
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void json_header(const struct ct_compat *c, FILE *f, uint16_t need, uint16_t extra)
{
	char v[32], buf[256], caps[128];

	fprintf(f, "{\"type\":\"compat_header\"");
	ct_compat_json_str(f, "driver", c->driver ? version_str(c->driver, v, sizeof(v)) : NULL);
	ct_compat_json_str(f, "gvisor", c->snap->id);
	ct_compat_json_str(f, "gvisor_commit", c->snap->commit);
	ct_compat_json_str(f, "gvisor_date", c->snap->date);
	ct_compat_json_str(f, "node", version_str(c->node->version, v, sizeof(v)));
	ct_compat_json_str(f, "node_match", c->match == CT_GV_EXACT ? "exact" : c->match == CT_GV_ANCESTOR
			? "approximate" : c->match == CT_GV_ANY ? "any" : "none");
	ct_compat_json_str(f, "runsc", runsc_str(c, buf, sizeof(buf)));
	ct_compat_json_str(f, "caps", ct_gv_caps_str(c->snap, c->caps, caps, sizeof(caps)));
	ct_compat_json_str(f, "caps_needed", ct_gv_caps_str(c->snap, need, caps, sizeof(caps)));
	ct_compat_json_str(f, "caps_for_libraries", extra ? ct_compat_libs_str(c, extra, buf, sizeof(buf)) : NULL);
	ct_compat_json_str(f, "caps_env", c->snap->caps_env);
	ct_compat_json_str(f, "caps_asked", c->asked_pid ? c->asked : NULL);
	if (c->asked_pid)
		fprintf(f, ",\"caps_asked_pid\":%u", c->asked_pid);
	ct_compat_json_str(f, "caps_asked_verdict", c->asked_pid ? ct_compat_asked_str(c, buf, sizeof(buf)) : NULL);
	ct_compat_json_str(f, "caps_flag", c->snap->caps_flag);
	ct_compat_json_str(f, "caps_flag_default", c->snap->caps_flag_default);
	fprintf(f, "}\n");
}

static void json_rows(const struct ct_compat *c, FILE *f)
{
	size_t i;

	for (i = 0; i < c->nrows; i++) {
		const struct row *r = &c->rows[i];
		char v[32], verdict[160];

		fprintf(f, "{\"type\":\"compat_row\"");
		ct_compat_json_str(f, "device", r->dev);
		ct_compat_json_str(f, "kind", ct_compat_kind_names[r->kind]);
		fprintf(f, ",\"number\":%u", r->number);
		ct_compat_json_str(f, "name", r->ours);
		ct_compat_json_str(f, "nvproxy_name", r->op ? r->op->name : NULL);
		fprintf(f, ",\"calls\":%llu,\"failed\":%llu,\"first_pid\":%u",
			(unsigned long long)r->calls, (unsigned long long)r->failed, r->first_pid);
		ct_compat_json_str(f, "first_comm", r->first_comm);
		ct_compat_json_str(f, "host_answer", r->failed ? r->answer : "ok");
		ct_compat_json_str(f, "verdict", ct_compat_verdict_names[r->verdict]);
		ct_compat_json_str(f, "detail", verdict_str(c, r, verdict, sizeof(verdict)));
		ct_compat_json_str(f, "since", r->first ? version_str(r->first->version, v, sizeof(v)) : NULL);
		ct_compat_json_str(f, "until", r->dropped && r->last ? version_str(r->last->version, v,
									    sizeof(v)) : NULL);
		ct_compat_json_str(f, "dropped_at", r->dropped ? version_str(r->dropped->version, v, sizeof(v))
						     : NULL);
		ct_compat_json_str(f, "ioctl_sniffer", ct_compat_sniffer_note(r));
		ct_compat_json_caller(f, r);
		fprintf(f, "}\n");
	}
}

static void json_summary(const struct ct_compat *c, FILE *f, uint16_t need)
{
	struct tally t;
	char caps[128];
	int k;

	count_rows(c, &t);
	fprintf(f, "{\"type\":\"compat_summary\"");
	for (k = 0; k < RK_COUNT; k++)
		fprintf(f, ",\"%s\":{\"rows\":%llu,\"calls\":%llu,\"refused\":%llu}",
			ct_compat_kind_names[k], t.rows[k], t.calls[k], t.refused[k]);
	ct_compat_json_str(f, "caps_to_enable", need & ~c->caps ? ct_gv_caps_str(c->snap, need | c->caps,
			caps, sizeof(caps)) : NULL);
	fprintf(f, ",\"refused_not_fatal\":%zu,\"refused_fatal\":%zu,\"refused_unknown\":%zu",
		t.effect[RE_NOT_FATAL], t.effect[RE_FATAL], t.effect[RE_UNKNOWN]);
	fprintf(f, ",\"clean\":%s,\"sniffer_disagreements\":%zu}\n", t.bad ? "false" : "true",
		t.notes);
}

void ct_compat_print(struct ct_compat *c)
{
	uint16_t rows = ct_compat_caps_needed(c), libs = ct_compat_lib_caps(c);
	uint16_t need = rows | libs, extra = libs & ~rows;
	FILE *f = c->o.out;

	if (c->o.json) {
		json_header(c, f, need, extra);
		json_rows(c, f);
		json_summary(c, f, need);
		return;
	}
	text_header(c, f, need, extra);
	text_rows(c, f);
	text_summary(c, f, need);
}
