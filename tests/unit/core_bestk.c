/* Unit tests for core/bestk and core/rules: the stop rule on hand-made run times, and
 * parsing and matching of event rules.
 * judges no time */
#include "bestk.h"
#include "rules.h"
#include "tap.h"

#include <math.h>

int main(void)
{
	double stable[] = {1.10, 1.00, 1.005, 1.30, 1.01};
	struct bestk r = {.k = 3, .epsilon = 0.02, .min_runs = 3, .max_runs = 40};
	ok(fabs(bestk_spread(stable, 5, 3) - 0.01) < 1e-12, "spread of the 3 fastest: (1.01-1.00)/1.00");
	ok(bestk_converged(&r, stable, 5), "converged when the k fastest are within epsilon");
	ok(!bestk_converged(&r, stable, 2), "not before min_runs");
	ok(bestk_spread(stable, 2, 3) < 0, "spread undefined with fewer than k runs");
	double noisy[] = {1.0, 1.05, 1.10, 1.15, 1.20};
	ok(!bestk_converged(&r, noisy, 5), "not converged when the k fastest disagree (5%%)");
	r.epsilon = 0.2;
	ok(bestk_converged(&r, noisy, 5), "converged with a looser epsilon");
	double order[] = {3, 2, 1, 2.01, 1.001};
	ok(fabs(bestk_spread(order, 5, 2) - 0.001) < 1e-12, "fastest found regardless of order");

	struct rule ru;
	char err[256];
	ok(rules_parse("runStart flush every=2", &ru, err, sizeof err) == 0 && ru.on == EV_RUN_START &&
		   ru.action == ACT_FLUSH && ru.every == 2,
	   "parse: runStart flush every=2");
	ok(rules_match(&ru, EV_RUN_START, 0, -1) && !rules_match(&ru, EV_RUN_START, 1, -1) &&
		   rules_match(&ru, EV_RUN_START, 4, -1),
	   "every=2 fires on runs 0, 2, 4");
	ok(!rules_match(&ru, EV_RUN_END, 0, -1), "only on its event");
	ok(rules_parse("threadCreated pin cpu=3 thread=2", &ru, err, sizeof err) == 0 && ru.cpu == 3,
	   "parse: pin with cpu and thread");
	ok(rules_match(&ru, EV_THREAD_CREATED, -1, 2) && !rules_match(&ru, EV_THREAD_CREATED, -1, 1),
	   "thread predicate");
	ok(rules_parse("runEnd marker text=a_b run=5", &ru, err, sizeof err) == 0 &&
		   strcmp(ru.text, "a_b") == 0 && rules_match(&ru, EV_RUN_END, 5, -1) &&
		   !rules_match(&ru, EV_RUN_END, 4, -1),
	   "marker with text and run predicate");
	ok(rules_parse("runEnd flush", &ru, err, sizeof err) < 0, "flush only at runStart/workloadStart: %s",
	   err);
	ok(rules_parse("threadCreated pin", &ru, err, sizeof err) < 0, "pin needs cpu: %s", err);
	ok(rules_parse("runStrat flush", &ru, err, sizeof err) < 0 && strstr(err, "unknown event"),
	   "unknown event: %s", err);
	ok(rules_parse("runStart explode", &ru, err, sizeof err) < 0 && strstr(err, "unknown action"),
	   "unknown action: %s", err);
	ok(rules_parent_side(ACT_PIN) && !rules_parent_side(ACT_FLUSH), "flush runs in the child, pin in the parent");
	return done_testing();
}
