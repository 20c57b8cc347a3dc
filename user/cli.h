/* SPDX-License-Identifier: MIT */
/*
 * The command line, from one table (cli.c): the parser, --help, the man
 * page's OPTIONS section (--help=man) and bash completion (--help=bash) are
 * all generated from it, so they cannot drift apart.  `make docs` writes
 * docs/cudatrace.8 and docs/cudatrace.bash-completion; tests/docs checks
 * that the committed ones are current.
 */
#ifndef CT_CLI_H
#define CT_CLI_H

#include <stdio.h>

#include "options.h"

/* Fills o from argv (o holds the defaults).  0, or -1 after saying why on
 * stderr.  --help and --version print and exit(0). */
int ct_cli_parse(int argc, char **argv, struct ct_options *o);

void ct_cli_help(FILE *f);         /* --help */
void ct_cli_man(FILE *f);          /* --help=man: roff, .SH OPTIONS to the end of it */
void ct_cli_completion(FILE *f);   /* --help=bash: a bash completion script */

#endif
