/* test_cli_opts: the one option parser of every command (cli_opts.h) and
 * the colour of verdict words (color.h), called directly on argv arrays
 * written here.  What each case must give is GNU getopt_long's behaviour
 * (values after '=' or in the next word, "--" ending options, grouped short
 * flags) or the messages cli_opts.h promises, read back from stderr. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_opts.h"
#include "color.h"
#include "testutil.h"

enum { O_MODE, O_MODULES, O_QUIET, O_OUT, O_JSON, O_REF, O_RERUN, O_REPORT, O_WATCH, O_WATCH_MAX };
static const vkrr_cli_opt table[] = {
    {"mode", 0, true, O_MODE, false},     {"modules", 0, true, O_MODULES, false},
    {"quiet", 'q', false, O_QUIET, false}, {"out", 'o', true, O_OUT, false},
    {"json", 0, true, O_JSON, false},     {"ref", 0, true, O_REF, false},
    {"watch", 0, false, O_WATCH, false},  {"watch-max", 0, true, O_WATCH_MAX, true},
    {0},
};
static const vkrr_cli_opt table2[] = {
    {"rerun", 0, false, O_RERUN, false}, {"report", 0, true, O_REPORT, false}, {0}};

/* One parse of the words (NULL-terminated): each result as "ID=VALUE" or
 * "ARG=VALUE", space-separated, into got; what the parser printed on stderr
 * into err.  Returns the last id (VKRR_OPT_END or VKRR_OPT_ERROR). */
/* stderr into a temporary file (what the parser prints), and back: the
 * text into err[ecap]. */
static FILE *stderr_begin(int *saved)
{
    fflush(stderr);
    *saved = dup(2);
    FILE *tmp = tmpfile();
    dup2(fileno(tmp), 2);
    return tmp;
}

static void stderr_end(FILE *tmp, int saved, char *err, size_t ecap)
{
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(err, 1, ecap - 1, tmp);
    err[n] = 0;
    fclose(tmp);
}

/* "cmd" and words (NULL-terminated, at most 30) as argv[32], parsed by the
 * test's tables. */
static vkrr_cli_opts begin(const char *const *words, char **argv)
{
    int argc = 0;
    argv[argc++] = "cmd";
    while (*words && argc < 31)
        argv[argc++] = (char *)*words++;
    argv[argc] = NULL;
    return vkrr_cli_opts_begin("cmd", argc, argv, 1, table, table2);
}

static int parse(const char *const *words, char *got, size_t cap, char *err, size_t ecap,
                 int *rc)
{
    char *argv[32];
    int saved;
    FILE *tmp = stderr_begin(&saved);
    vkrr_cli_opts p = begin(words, argv);
    const char *v;
    int id;
    size_t at = 0;
    got[0] = 0;
    while ((id = vkrr_cli_opts_next(&p, &v)) != VKRR_OPT_END && id != VKRR_OPT_ERROR)
        at += (size_t)snprintf(got + at, cap - at, "%s%s%d=%s", at ? " " : "",
                               id == VKRR_OPT_ARG ? "ARG" : id == VKRR_OPT_HELP ? "HELP" : "",
                               id < 0 ? 0 : id, v ? v : "-");
    stderr_end(tmp, saved, err, ecap);
    *rc = id == VKRR_OPT_ERROR ? p.rc : 0;
    return id;
}

#define PARSE(...)                                                                           \
    parse((const char *const[]){__VA_ARGS__, NULL}, got, sizeof got, err, sizeof err, &rc)

static void values(void)
{
    char got[512], err[1024];
    int rc;
    /* --opt=value, --opt value, positionals anywhere, "--" ends the options */
    CHECK(PARSE("--json=r.json", "CAP", "--mode", "both", "--", "--quiet", "-") == VKRR_OPT_END);
    CHECK_STR(got, "4=r.json ARG0=CAP 0=both ARG0=--quiet ARG0=-");
    /* a value may begin with '-' after '=' or when it is not an option */
    CHECK(PARSE("--ref=--x", "--mode", "-3") == VKRR_OPT_END);
    CHECK_STR(got, "5=--x 0=-3");
    /* short forms: a flag, grouped flags, -oDIR and -o DIR; -h is --help */
    CHECK(PARSE("-q", "-qoDIR", "-o", "D2", "-h") == VKRR_OPT_END);
    CHECK_STR(got, "2=- 2=- 3=DIR 3=D2 HELP0=-");
    /* a second table, and a hidden option taken like any other */
    CHECK(PARSE("--report", "R", "--rerun", "--watch-max=3") == VKRR_OPT_END);
    CHECK_STR(got, "7=R 6=- 9=3");
    CHECK_EQ_U64(rc, 0);
    CHECK_STR(err, "");
}

static void errors(void)
{
    char got[512], err[1024];
    int rc;
    /* a missing value: at the end, empty after '=', or the next word an option */
    CHECK(PARSE("CAP", "--json") == VKRR_OPT_ERROR);
    CHECK_EQ_U64(rc, 2);
    CHECK(strstr(err, "vkrr cmd: --json needs a value\n") != NULL);
    CHECK(strstr(err, "Run 'vkrr cmd --help' for usage.") != NULL);
    CHECK(PARSE("--json=") == VKRR_OPT_ERROR);
    CHECK(strstr(err, "--json needs a value") != NULL);
    CHECK(PARSE("--json", "--mode", "both") == VKRR_OPT_ERROR);
    CHECK(strstr(err, "--json needs a value (before --mode;") != NULL);
    CHECK(PARSE("-o") == VKRR_OPT_ERROR);
    CHECK(strstr(err, "--out needs a value") != NULL);
    /* a value given to a flag */
    CHECK(PARSE("--quiet=yes") == VKRR_OPT_ERROR);
    CHECK_EQ_U64(rc, 2);
    CHECK(strstr(err, "--quiet takes no value (given 'yes')") != NULL);
    /* unknown: the names it begins (shortest first; never taken as an
     * abbreviation), else the nearest by edit distance, else nothing */
    CHECK(PARSE("--mod", "both") == VKRR_OPT_ERROR);
    CHECK_EQ_U64(rc, 2);
    CHECK(strstr(err, "unknown option '--mod'; did you mean --mode or --modules?") != NULL);
    CHECK(PARSE("--re=x") == VKRR_OPT_ERROR);
    CHECK(strstr(err, "unknown option '--re'; did you mean --ref, --rerun or --report?") != NULL);
    CHECK(PARSE("--jsno", "F") == VKRR_OPT_ERROR);
    CHECK(strstr(err, "unknown option '--jsno'; did you mean --json?") != NULL);
    CHECK(PARSE("--mdoe", "both") == VKRR_OPT_ERROR); /* a transposition is one step */
    CHECK(strstr(err, "unknown option '--mdoe'; did you mean --mode?") != NULL);
    CHECK(PARSE("--JSON=F") == VKRR_OPT_ERROR); /* names are exact, suggestions forgiving */
    CHECK(strstr(err, "unknown option '--JSON'; did you mean --json?") != NULL);
    CHECK(PARSE("-mode", "both") == VKRR_OPT_ERROR);
    CHECK(strstr(err, "unknown option '-mode'; did you mean --mode?") != NULL);
    CHECK(PARSE("--watch-ma", "1") == VKRR_OPT_ERROR); /* hidden: never suggested */
    CHECK(strstr(err, "unknown option '--watch-ma'\n") != NULL);
    CHECK(PARSE("--zzzzzz") == VKRR_OPT_ERROR);
    CHECK(strstr(err, "unknown option '--zzzzzz'\n") != NULL);
    CHECK(PARSE("-x") == VKRR_OPT_ERROR);
    CHECK(strstr(err, "unknown option '-x'\n") != NULL);
    /* what came before the error was returned as usual */
    CHECK(PARSE("CAP", "-qx") == VKRR_OPT_ERROR);
    CHECK_STR(got, "ARG0=CAP 2=-");
    CHECK(strstr(err, "unknown option '-x'") != NULL);
}

/* What vkrr_color_word writes on f (stdout redirected to a file when
 * to_stdout: the stream is stdout, whatever is behind it). */
static void color_word(bool to_stdout, const char *fmt, const char *word, char *out, size_t cap)
{
    FILE *tmp = tmpfile();
    int saved = -1;
    if (to_stdout) {
        fflush(stdout);
        saved = dup(1);
        dup2(fileno(tmp), 1);
    }
    vkrr_color_word(to_stdout ? stdout : tmp, fmt, word);
    fflush(to_stdout ? stdout : tmp);
    if (to_stdout) {
        dup2(saved, 1);
        close(saved);
    }
    rewind(tmp);
    size_t n = fread(out, 1, cap - 1, tmp);
    out[n] = 0;
    fclose(tmp);
}

static void color(void)
{
    char got[512], err[1024], out[128];
    int rc;
    /* --color is every command's, applied by the parser and not returned */
    CHECK(PARSE("--color=always", "CAP") == VKRR_OPT_END);
    CHECK_STR(got, "ARG0=CAP");
    CHECK(vkrr_color_on(stdout));
    color_word(true, "  %-7s|", "PASS", out, sizeof out);
    CHECK_STR(out, "  \033[32mPASS\033[0m   |"); /* the padding outside the colour */
    color_word(true, "%5s|", "FAIL", out, sizeof out);
    CHECK_STR(out, " \033[31mFAIL\033[0m|");
    color_word(true, " is the %s:", "CULPRIT", out, sizeof out);
    CHECK_STR(out, " is the \033[1;31mCULPRIT\033[0m:");
    color_word(true, "%-4s|", "-", out, sizeof out); /* not a verdict: plain */
    CHECK_STR(out, "-   |");
    /* a stream other than stdout/stderr (a report file) never, even always */
    color_word(false, "%-7s|", "PASS", out, sizeof out);
    CHECK_STR(out, "PASS   |");
    CHECK(PARSE("--color", "never") == VKRR_OPT_END);
    CHECK(!vkrr_color_on(stdout));
    color_word(true, "%-7s|", "FAIL", out, sizeof out);
    CHECK_STR(out, "FAIL   |");
    /* auto: stdout here is not a terminal (ctest captures it) */
    CHECK(PARSE("--color=auto") == VKRR_OPT_END);
    CHECK(isatty(1) || !vkrr_color_on(stdout));
    CHECK(PARSE("--color=sometimes") == VKRR_OPT_ERROR);
    CHECK_EQ_U64(rc, 2);
    CHECK(strstr(err, "--color takes always, never or auto, not 'sometimes'") != NULL);
    CHECK(PARSE("--color") == VKRR_OPT_ERROR);
    CHECK(strstr(err, "--color needs a value") != NULL);
    vkrr_color_set(VKRR_COLOR_AUTO);
}

/* vkrr_cli_opts_one_arg: the loop of a command over one CAPDIR */
typedef struct one_ctx {
    char seen[256];
    int helps;
    int stop_at; /* take returns 7 for this id */
} one_ctx;

static int one_take(const char *cmd, int id, const char *v, void *ctx)
{
    one_ctx *c = ctx;
    size_t at = strlen(c->seen);
    snprintf(c->seen + at, sizeof c->seen - at, "%s%s:%d=%s", at ? " " : "", cmd, id, v ? v : "-");
    return id == c->stop_at ? 7 : 0;
}

static void one_help(void *ctx)
{
    ((one_ctx *)ctx)->helps++;
}

static int one_arg(const char *const *words, one_ctx *c, const char **arg, char *err, size_t ecap)
{
    char *argv[32];
    int saved;
    FILE *tmp = stderr_begin(&saved);
    vkrr_cli_opts p = begin(words, argv);
    int rc = vkrr_cli_opts_one_arg(&p, "CAPDIR", arg, one_take, one_help, c);
    stderr_end(tmp, saved, err, ecap);
    return rc;
}

#define ONE(...) one_arg((const char *const[]){__VA_ARGS__, NULL}, &c, &arg, err, sizeof err)

static void one_argument(void)
{
    char err[1024];
    const char *arg = "stale";
    one_ctx c = {.stop_at = -100};
    /* options in order to take, with the command's name; the argument set */
    CHECK_EQ_U64(ONE("--mode", "both", "cap", "-q"), 0);
    CHECK_STR(arg, "cap");
    CHECK_STR(c.seen, "cmd:0=both cmd:2=-");
    CHECK_STR(err, "");
    /* a second argument, and none: usage errors (exit 2) naming CAPDIR */
    c = (one_ctx){.stop_at = -100};
    CHECK_EQ_U64(ONE("a", "b"), 2);
    CHECK(strstr(err, "vkrr cmd: one CAPDIR only ('b' is extra)\n") != NULL);
    CHECK_EQ_U64(ONE("--mode", "both"), 2);
    CHECK(arg == NULL && strstr(err, "vkrr cmd: needs CAPDIR\n") != NULL);
    /* --help: the help, -1, whatever else is missing */
    c = (one_ctx){.stop_at = -100};
    CHECK_EQ_U64(ONE("--help"), (uint64_t)-1);
    CHECK_EQ_U64(c.helps, 1);
    /* take's exit code stops the loop at once */
    c = (one_ctx){.stop_at = 0};
    CHECK_EQ_U64(ONE("--mode", "x", "-q", "cap"), 7);
    CHECK_STR(c.seen, "cmd:0=x");
    /* the parser's own error: its code */
    CHECK_EQ_U64(ONE("cap", "--json"), 2);
    CHECK(strstr(err, "--json needs a value") != NULL);
}

int main(void)
{
    values();
    errors();
    one_argument();
    color();
    return test_finish("cli_opts");
}
