// SPDX-License-Identifier: MIT
/*
 * What the traced container asks for: NVIDIA_DRIVER_CAPABILITIES in a
 * process's environment (the trace keeps NVIDIA_* variables), judged as
 * runsc judges it (runsc/specutils/nvidia.go, NVProxyDriverCapsFromEnv):
 * "all" takes what runsc allows; otherwise runsc refuses to start a
 * container that asks for a capability it does not allow, or one it does
 * not know.
 */
#include <stdio.h>
#include <string.h>

#include "caps_asked.h"

bool ct_caps_asked_env(const struct ct_proc *p, const char *name, char *buf, size_t n)
{
	const char *env = (const char *)(p + 1) + p->argv_size, *end = env + p->env_size;
	size_t len = strlen(name);

	while (env < end) {   /* NUL-separated; the last entry may be cut */
		const char *nul = memchr(env, '\0', (size_t)(end - env));
		size_t elen = nul ? (size_t)(nul - env) : (size_t)(end - env);

		if (elen > len && memcmp(env, name, len) == 0 && env[len] == '=') {
			snprintf(buf, n, "%.*s", (int)(elen - len - 1), env + len + 1);
			return true;
		}
		env += elen + 1;
	}
	return false;
}

static bool has_word(const char *list, const char *word)
{
	size_t len = strlen(word);
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, ",");

		if (n == len && strncmp(p, word, len) == 0)
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

enum ct_asked ct_caps_asked_judge(const struct ct_gv_snapshot *s, const char *asked,
				  uint16_t *refused, const char **bad)
{
	uint16_t want = 0, allowed = 0;

	*refused = 0;
	*bad = NULL;
	if (!s->caps_flag_default || !ct_gv_caps_parse(s, s->caps_flag_default, &allowed, bad))
		return CT_ASKED_UNJUDGED;
	if (!*asked)
		return CT_ASKED_OK;   /* empty: runsc falls back to its defaults */
	if (has_word(asked, "all"))
		return CT_ASKED_OK;   /* "all": what runsc allows */
	if (!ct_gv_caps_parse(s, asked, &want, bad))
		return CT_ASKED_UNKNOWN;
	*refused = want & ~allowed;
	return *refused ? CT_ASKED_REFUSED : CT_ASKED_OK;
}
