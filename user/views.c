// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "apisum.h"
#include "filter.h"
#include "perfetto.h"
#include "summary.h"
#include "views.h"

int ct_views_check(const struct ct_options *o)
{
	if (o->write_path && (o->summary || o->perfetto_path)) {
		fprintf(stderr, "cudatrace: -w writes the raw trace; -c, -C and --perfetto "
				"decode it: run them with -r FILE afterwards\n");
		return -1;
	}
	if (o->write_path && ct_filter_needs_decoder(o->filter)) {
		fprintf(stderr, "cudatrace: -w writes the raw trace; -e, --failed, --tid and a "
				"--comm pattern filter the decoded calls: give them with -r FILE "
				"afterwards (an exact --comm NAME works with -w: the kernel "
				"checks it)\n");
		return -1;
	}
	if ((o->summary_by_pid || o->summary_by_gpu || o->summary_by_api) && !o->summary) {
		fprintf(stderr, "cudatrace: --summary-by goes with -c or -C\n");
		return -1;
	}
	return 0;
}

void ct_views_decode_opts(struct ct_decode_opts *dopts, const struct ct_options *o)
{
	if (o->summary == 1)
		dopts->quiet = true;   /* -c: the table alone */
}

int ct_views_setup(struct ct_decoder *d, const struct ct_options *o)
{
	struct ct_perfetto *pf = NULL;
	struct ct_summary *sum = NULL;
	struct ct_view v;

	/* Filters first: a call they drop reaches no view after them. */
	if (o->filter) {
		v = ct_filter_view(o->filter);
		if (ct_decoder_add_view(d, &v))
			goto full;
	}

	if (o->perfetto_path) {
		pf = ct_perfetto_open(o->perfetto_path);
		if (!pf) {
			fprintf(stderr, "cudatrace: cannot write %s: %s\n", o->perfetto_path,
				strerror(errno));
			return -1;
		}
	}
	if (o->summary && o->summary_by_api) {
		struct ct_apisum *as = ct_apisum_new(o->out, o->json, o->summary_by_api == 2);

		if (!as)
			goto oom;
		v = ct_apisum_view(as);
		if (ct_decoder_add_view(d, &v)) {
			ct_apisum_free(as);
			goto full;
		}
	} else if (o->summary) {
		struct ct_summary_opts so = {
			.out = o->out, .json = o->json, .by_pid = o->summary_by_pid,
			.by_gpu = o->summary_by_gpu,
		};

		sum = ct_summary_new(&so);
		if (!sum)
			goto oom;
		v = ct_summary_view(sum);
		if (ct_decoder_add_view(d, &v))
			goto full;
		sum = NULL;   /* the decoder's now: its finish frees it */
	}
	if (pf) {
		v = ct_perfetto_view(pf);
		if (ct_decoder_add_view(d, &v))
			goto full;
	}
	return 0;
full:
	fprintf(stderr, "cudatrace: too many views (at most %d)\n", CT_MAX_VIEWS);
	goto fail;
oom:
	fprintf(stderr, "cudatrace: out of memory\n");
fail:
	ct_summary_free(sum);
	if (pf) {
		ct_perfetto_close(pf);
		remove(o->perfetto_path);
	}
	return -1;
}

struct ct_decoder *ct_views_decoder_new(const struct ct_options *o)
{
	struct ct_decode_opts dopts = ct_decode_opts_from(o);
	struct ct_decoder *d;

	ct_views_decode_opts(&dopts, o);
	d = ct_decoder_new(&dopts);
	if (!d) {
		fprintf(stderr, "cudatrace: out of memory\n");
		return NULL;
	}
	if (ct_views_setup(d, o)) {
		ct_decoder_free(d);
		return NULL;
	}
	return d;
}
