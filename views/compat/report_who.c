// SPDX-License-Identifier: MIT
/*
 * --compat, printed: who asks and who calls.  The container's own request
 * (NVIDIA_DRIVER_CAPABILITIES) as runsc judges it, the libraries that add
 * capabilities, and under a refused row its caller and what refusing it
 * does; as text lines and JSON fields.  Names from the trace are escaped.
 */
#include <stdio.h>
#include <string.h>

#include "report_rows.h"

/* "utility: libnvidia-ml.so*, by a known caller": why the trace needs
 * capabilities beyond nvproxy's: the driver libraries it uses (extra: the
 * capabilities only they bring). */
const char *ct_compat_libs_str(const struct ct_compat *c, uint16_t extra, char *buf, size_t n)
{
	size_t used = 0;
	unsigned i;

	buf[0] = '\0';
	for (i = 0; i < ct_ndriver_libs && used < n; i++) {
		uint16_t one = 0;
		const char *bad;
		bool stacked = c->libs_stacked >> i & 1, known = c->libs_known >> i & 1;

		if (!(stacked || known) || !ct_gv_caps_parse(c->snap, ct_driver_libs[i].cap, &one,
							   &bad) || !(one & extra))
			continue;
		used += (size_t)snprintf(buf + used, n - used, "%s%s: %s, %s", used ? "; " : "",
					 ct_driver_libs[i].cap, ct_driver_libs[i].module,
					 stacked ? "in -k stacks" : "by a known caller");
	}
	return buf;
}

/* What runsc, with its default allowed set, makes of the container's own
 * request; "" if the trace shows none. */
const char *ct_compat_asked_str(const struct ct_compat *c, char *buf, size_t n)
{
	const struct ct_gv_snapshot *s = c->snap;
	char caps[128];
	uint16_t refused;
	const char *bad;

	buf[0] = '\0';
	if (!c->asked_pid)
		return buf;
	switch (ct_caps_asked_judge(s, c->asked, &refused, &bad)) {
	case CT_ASKED_REFUSED:
		snprintf(buf, n, "runsc refuses to start such a container unless %s allows %s "
			 "(its default: %s)", s->caps_flag, ct_gv_caps_str(s, refused, caps,
			 sizeof(caps)), s->caps_flag_default);
		break;
	case CT_ASKED_UNKNOWN:
		snprintf(buf, n, "runsc refuses to start such a container: this gVisor knows no "
			 "capability '%s'", bad);
		break;
	case CT_ASKED_OK:
		snprintf(buf, n, "runsc's default %s allows it", s->caps_flag);
		break;
	default:
		snprintf(buf, n, "not judged: this gVisor has no capability flag");
	}
	return buf;
}

void ct_compat_text_asked(const struct ct_compat *c, FILE *f)
{
	char v[4 * sizeof(c->asked) + 1], verdict[384];

	if (!c->asked_pid)
		return;
	fprintf(f, "  container:     asks for %s (%s of pid %u%s); %s\n", ct_compat_safe(c->asked, v, sizeof(v)),
		c->snap->caps_env, c->asked_pid, c->asked_differs ? ", other processes differ" : "",
		ct_compat_asked_str(c, verdict, sizeof(verdict)));
}

/* The calls may be clean while runsc, as it comes, would not start the
 * container at all: said beside the verdict on the calls. */
void ct_compat_text_asked_summary(const struct ct_compat *c, FILE *f)
{
	char v[4 * sizeof(c->asked) + 1], caps[128];
	uint16_t refused;
	const char *bad;
	enum ct_asked a;

	if (!c->asked_pid)
		return;
	a = ct_caps_asked_judge(c->snap, c->asked, &refused, &bad);
	if (a == CT_ASKED_REFUSED)
		fprintf(f, "but before any call: the container asks for %s=%s, and runsc's default "
			"does not allow %s: allow it, or ask for less\n", c->snap->caps_env,
			ct_compat_safe(c->asked, v, sizeof(v)), ct_gv_caps_str(c->snap, refused, caps,
								      sizeof(caps)));
	else if (a == CT_ASKED_UNKNOWN)
		fprintf(f, "but before any call: the container asks for %s=%s, which names a "
			"capability this gVisor does not know\n", c->snap->caps_env,
			ct_compat_safe(c->asked, v, sizeof(v)));
}

static const char *effect_str(const struct row *r)
{
	switch (ct_compat_effect(r)) {
	case RE_NOT_FATAL: return "it carries on without it: not fatal";
	case RE_FATAL: return "it stops without it: fatal";
	default: return r->known && r->known->effect == CT_CARRIES_ON
		? "it carries on without it, but not every stack shows it: effect unknown"
		: "what it does without it is not known";
	}
}

/* A refused row: who made it (-k stack), and what known_callers.tsv says. */
void ct_compat_text_callers(const struct row *r, FILE *f)
{
	const struct ct_known_caller *k = r->known;
	char api[4 * ROW_NAME_MAX + 1], mod[4 * ROW_NAME_MAX + 1];

	if (r->api[0])   /* names from the trace: escaped */
		fprintf(f, "%18s ^ made through %s%s%s (-k stack)\n", "",
			ct_compat_safe(r->api, api, sizeof(api)), r->api_module[0] ? " in " : "",
			ct_compat_safe(r->api_module, mod, sizeof(mod)));
	if (!k)
		return;
	if (!r->stacked)
		fprintf(f, "%18s ^ known caller, no -k stack to confirm it: %s %s: %s; %s\n", "",
			k->module, k->function, k->what, effect_str(r));
	else
		fprintf(f, "%18s ^ known caller, %s in %llu of %llu stacks: %s; %s\n", "",
			k->function, (unsigned long long)r->known_seen,
			(unsigned long long)r->stacked, k->what, effect_str(r));
}

/* Who made the row's calls: "api" and "api_module" from -k stacks, the
 * known caller, and for a refused row what refusing it does. */
void ct_compat_json_caller(FILE *f, const struct row *r)
{
	static const char *const effects[] = { [RE_UNKNOWN] = "unknown",
		[RE_NOT_FATAL] = "not fatal", [RE_FATAL] = "fatal" };
	const struct ct_known_caller *k = r->known;

	ct_compat_json_str(f, "api", r->api[0] ? r->api : NULL);
	ct_compat_json_str(f, "api_module", r->api_module[0] ? r->api_module : NULL);
	fprintf(f, ",\"stacked\":%llu", (unsigned long long)r->stacked);
	if (!k) {
		fprintf(f, ",\"known_caller\":null");
	} else {
		fprintf(f, ",\"known_caller\":{\"seen_in_stacks\":%llu", (unsigned long long)r->known_seen);
		ct_compat_json_str(f, "module", k->module);
		ct_compat_json_str(f, "function", k->function);
		ct_compat_json_str(f, "carries_on", k->effect == CT_CARRIES_ON ? "yes" : k->effect == CT_STOPS
			 ? "no" : "unknown");
		ct_compat_json_str(f, "what", k->what);
		ct_compat_json_str(f, "source", k->source);
		fputc('}', f);
	}
	ct_compat_json_str(f, "refusal_effect", ct_compat_refused(r->verdict) ?
		 effects[ct_compat_effect(r)] : NULL);
}
