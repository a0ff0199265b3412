/*
 * param.h - the typed parameter schema.
 *
 * Every workload declares its parameters in one const table of struct
 * bt_param; the engine has one for the parameters common to all runs (reps,
 * warmup, duration, ops, pin, ...). The CLI's key=value parsing, the JSON
 * plan reader, `benchtop list`, the TUI form, validation messages and the
 * recording all read these tables: nothing is written twice.
 *
 * Value syntax by kind:
 *   INT       decimal integer, optional sign                    "8", "-1"
 *   SIZE      bytes, optional K/M/G/T suffix (powers of 1024),
 *             optional trailing B or iB ("64K", "1MiB", "4096")
 *   DURATION  number with unit ns/us/ms/s/m/h; fractions allowed
 *             ("5ms", "1.5s", "250us"); a bare 0 is allowed
 *   ENUM      one of choices
 *   LIST      one or more of choices joined by '+' ("md5+sha1"); stored as
 *             a bit mask in choice order, so at most 64 choices
 *   BOOL      on/off, true/false, yes/no, 1/0
 *   STRING    any text up to BT_VALUE_TEXT-1 bytes, checked by p->check
 *             when set
 */
#ifndef BT_CORE_PARAM_H
#define BT_CORE_PARAM_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

enum bt_pkind {
	BT_P_INT,
	BT_P_SIZE,
	BT_P_DURATION,
	BT_P_ENUM,
	BT_P_LIST,
	BT_P_BOOL,
	BT_P_STRING,
};

/* Flags for struct bt_param.flags. */
#define BT_PF_NOSWEEP 0x1	/* only one value allowed (reps, warmup, ...) */
/*
 * The value is a count of workers (threads, processes, clients): a sweep
 * over it is a scaling experiment, whose chart draws the ideal linear line.
 * Faces ask this flag, never the parameter's name.
 */
#define BT_PF_WORKERS 0x2
/*
 * A STRING whose value names the sweep axis that makes the rows of the
 * tables (the plan moves that axis first); "" for the first axis given.
 */
#define BT_PF_ROWS 0x4
/*
 * At its default the value says nothing about the experiment (pin=none,
 * as=threads, a harness switch): left out of the fixed values that label a
 * run (bt_plan_fixed), shown when set to anything else.
 */
#define BT_PF_QUIET 0x8
/*
 * Explore mode (engines/explore.h) may change the value while the load
 * runs: at the next sample boundary the workers are drained, the rep's
 * teardown and setup run again with the new value, and the workers restart
 * (all within one interval). Mark what an experimenter turns while watching:
 * the worker count, the sync model (lock, notify, wait), pin, the length of
 * the work.
 */
#define BT_PF_LIVE 0x10
/*
 * On a BT_PF_WORKERS | BT_PF_LIVE parameter: the workers are independent
 * peers, and a rep set up for more of them than run costs next to nothing
 * (no per-worker buffers worth speaking of). Explore then sets the rep up
 * for spare workers (engines/explore.h: BT_EXPLORE_SPARE) and changes the
 * count without a restart: a lower value parks workers (they block on a
 * futex and count nothing), a higher one wakes or starts them. The
 * workload's worker loop must allow being entered again after it returned
 * on a stop.
 */
#define BT_PF_PARK 0x20

struct bt_param {
	const char *name;
	enum bt_pkind kind;
	const char *def;		/* default, as text; parsed like user input */
	int64_t min, max;		/* INT, SIZE (bytes), DURATION (ns): inclusive */
	const char *const *choices;	/* ENUM, LIST: NULL-terminated */
	const char *help;		/* one line */
	const char *ticks;		/* suggested sweep values for the TUI, comma-separated, or NULL */
	unsigned flags;			/* BT_PF_* */
	/*
	 * INT only: a word that stands for the value 0, which need not be in
	 * min..max ("auto" for reps=auto); its canonical text is the word, and
	 * a plan writes it as that string. NULL: none.
	 */
	const char *zero_word;
	/* Extra check for STRING values (e.g. the pin syntax); 0 or -EINVAL with err set. */
	int (*check)(const char *text, struct bt_err *err);
};

#define BT_VALUE_TEXT 256

struct bt_value {
	int64_t i;		/* INT; SIZE bytes; DURATION ns; ENUM index; LIST mask; BOOL 0/1 */
	char text[BT_VALUE_TEXT];	/* canonical text (see bt_param_parse) */
};

/*
 * Parse text as a value of p into out. On error returns -EINVAL and sets err
 * to one line naming the parameter, the value and what is allowed:
 *   "threads=0: must be 1..1024"
 *   "lock=bogus: must be one of mutex, adaptive, spin, ticket"
 *   "duration=-1: must be a duration like 500ms, 2s (0..1h)"
 * The canonical text is: INT decimal; SIZE the shortest exact suffix form
 * ("64K", "1M", "100"); DURATION the shortest exact unit form ("5ms",
 * "1500us"); ENUM the choice; LIST choices joined by '+' in choice order;
 * BOOL "on"/"off"; STRING as given.
 */
int bt_param_parse(const struct bt_param *p, const char *text, struct bt_value *out,
		   struct bt_err *err);

/*
 * Split a user value into sweep tokens on commas. A token starting with
 * "list:" keeps the comma-separated numeric tokens that follow it, so
 * "none,list:0,2,4-7,compact" gives "none", "list:0,2,4-7", "compact".
 * Returns the token count (>= 1) with *tokens a malloc'd array of malloc'd
 * strings (free with bt_param_tokens_free), or -EINVAL for an empty token.
 */
int bt_param_split(const char *text, char ***tokens);
void bt_param_tokens_free(char **tokens, int n);

/* Find a parameter by name in tab[0..n-1]; NULL if absent. */
const struct bt_param *bt_param_find(const struct bt_param *tab, size_t n, const char *name);

/* What is allowed, for help and messages: "1..1024", "mutex|adaptive|spin", "0..1h", "on|off". */
void bt_param_allowed(const struct bt_param *p, char *buf, size_t n);

/* The kind's name: "int", "size", "duration", "enum", "list", "bool", "string". */
const char *bt_pkind_name(enum bt_pkind k);

/* Helpers for the value parsers, exposed for reuse: 0 or -EINVAL. */
int bt_parse_size(const char *s, int64_t *out);
int bt_parse_duration(const char *s, int64_t *ns);

#endif
