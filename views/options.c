// SPDX-License-Identifier: MIT
#include <unistd.h>

#include "options.h"

struct ct_decode_opts ct_decode_opts_from(const struct ct_options *o)
{
	struct ct_decode_opts d = {
		.out = o->out,
		.json = o->json,
		.verbose = o->verbose,
		.timestamps = o->timestamps,
		.durations = o->durations,
		.api_lib = o->api_lib,
		.py_user = o->py_user,
	};

	/* Colour only where a person reads it, unless asked. */
	d.color = !o->json && (o->color == 1 || (o->color == -1 && isatty(fileno(o->out))));
	d.batch_output = o->read_path && !isatty(fileno(o->out));
	return d;
}
