-- rot.cli.usage: what rot says of its commands: the list of commands with their usage, `rot
-- help`, `rot config`'s listing of the keys and `rot completion bash`.
local util = require "rot.util"
local config = require "rot.config"
local rule = require "rot.compare.rule"

local M = {}

-- Each command: its name, its usage line and what it does.
local commands = {
  { "measure", "measure NAME|PATH.lua [ARG ...] [-key=value ...]",
    "run a measurement script: table, CSV and roofline plot" },
  { "build", "build NAME|PATH.lua [ARG ...] [-key=value ...]",
    "build every core a measurement needs and measure nothing: what was built, and every compiler error with its "
    .. "kernel and macros" },
  { "profile",
    "profile [-threads=N] [-counters=EVENT,...] [-count] [-showOutput] [-key=value ...] -- PROGRAM [ARG ...]",
    "measure your own program: its whole time, a row per marked region (rot/markers.h) and its hot functions, "
    .. "found by sampling; -count counts its flops, bytes and cache traffic under Valgrind and finds its hot loops, "
    .. "each a roofline point with a bound; its threads (-threads, default one per CPU, told as OMP_NUM_THREADS) "
    .. "a coordinate; NAME.csv/.json/.svg/.png; the program's own options after --; rot history/compare ./PROGRAM" },
  { "history", "history NAME|PATH.lua",
    "every recorded run of a measurement, newest first: id, when, points, machine, and what changed from the run "
    .. "before" },
  { "compare", "compare NAME|PATH.lua [A [B]] [-remeasure[=N]] [-minEffect=F] [-machine=ID,ID] [-failOn=slower|any]",
    "two runs point by point (default: the latest two whose results differ; A, B: run ids from rot history; "
    .. "-machine: the latest run on each of two machines): verdicts against the noise between runs this machine's "
    .. "history shows (inconclusive without it), or with -remeasure from N rounds (default " .. rule.ROUNDS
    .. ") of both runs' points measured again alternately, their cores rebuilt from the recorded sources; a change "
    .. "under -minEffect (" .. rule.MIN_EFFECT
    .. ") is the same; NAME-compare.csv/.json/.svg; -failOn exits 1 when a point got slower (any: changed) by that "
    .. "rule" },
  { "list", "list", "shipped and user measurements with their descriptions" },
  { "config", "config [-key=value ...]", "every configuration key: type, default, value and where it came from" },
  { "cache", "cache [clear [NAME]]",
    "size and entries of the result cache per machine; clear empties it, clear NAME removes one measurement's (or "
    .. "one machine's) entries" },
  { "asm", "asm KERNEL|PATH.c [-MACRO=value ...] [-optimization=FLAGS]",
    "annotated assembly of a kernel, built as a measurement would build it" },
  { "predict", "predict PROFILE.csv DEVICE.csv [MEASURED.csv]",
    "kernel times on a GPU predicted from a profile (ncu --csv --page raw, or a rot CSV) and that GPU's "
    .. "gpu-peaks.csv; APE against measured times" },
  { "utilization", "utilization PROFILE.csv TABLE.csv",
    "shared-memory atomic utilization of profiled kernels, from the GPU's T(n,e,c) table (rot measure gpu-atomics)" },
  { "events", "events [all]",
    "whether this machine counts hardware events, and its PMUs (all: every event, marked where it cannot be opened)" },
  { "completion", "completion bash", "print a bash completion script (source it from ~/.bashrc)" },
  { "run", "run FILE.lua [ARG ...]", "run a Lua script with the rot library loaded (no summary line)" },
  { "worker", "worker JOBDIR TASK", "measure one Slurm array task's points (started by sbatch for -executor=slurm)" },
  { "help", "help [COMMAND]", "this help, or one command's" },
}

function M.command_names()
  local n = {}
  for _, c in ipairs(commands) do n[#n + 1] = c[1] end
  return n
end

-- rot help [COMMAND]; with no command at all (a bare `rot`) the usage goes to stderr and the
-- exit status is 2, as a command line that says nothing to do is a usage error.
function M.help(cmd, bare)
  local out = bare and io.stderr or io.stdout
  if cmd then
    for _, c in ipairs(commands) do
      if c[1] == cmd then
        out:write("usage: rot ", c[2], "\n", c[3], "\n")
        if cmd == "measure" then
          out:write("\nOptions are configuration keys (see `rot config`), e.g. -outputDir=plots -runs=10.\n",
            "Everything after -- goes to the script as arguments, verbatim: rot measure study.lua -- -O2 -x=1\n",
            "A script path may have a kernels/ folder beside it: its .c kernels are built into the core.\n")
        end
        return 0
      end
    end
    util.fail("unknown command '" .. cmd .. "'" .. util.did_you_mean(cmd, M.command_names()),
      "rot help lists the commands")
  end
  out:write("usage: rot COMMAND [ARG ...] [-key=value ...] [-- ARG ...]\n\ncommands:\n")
  for _, c in ipairs(commands) do out:write(string.format("  %-44s %s\n", c[2], c[3])) end
  out:write("\nrot measure triad    measure STREAM triad from L1 to DRAM and plot its roofline\n")
  return bare and 2 or 0
end

-- rot config: every key, its type, value and origin, its default and what it sets.
function M.show_config(cfg)
  local keys = cfg:keys()
  for _, k in ipairs(keys) do
    io.stdout:write(string.format("%-20s %-6s = %-24s (%s)\n", k.name, k.type, tostring(k.value), k.origin))
    local def = k.default:gsub("^@cache", "$XDG_CACHE_HOME"):gsub("^@config", "$XDG_CONFIG_HOME")
    io.stdout:write(string.format("%20s default '%s'%s. %s\n", "", def,
      k.choices ~= "" and (", one of " .. k.choices) or "", k.description))
  end
  return 0
end

-- rot completion bash: a bash completion script for rot's commands and keys.
function M.completion(pos)
  if pos[2] ~= "bash" then util.fail("completion supports 'bash'", "rot completion bash >> ~/.bashrc") end
  local keys = {}
  for _, k in ipairs(config.names()) do keys[#keys + 1] = "-" .. k .. "=" end
  local script = ([==[
# bash completion for rot: source this file, or add `eval "$(rot completion bash)"` to ~/.bashrc
_rot() {
  local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]}
  if [[ $cur == -* ]]; then
    compopt -o nospace 2>/dev/null
    local own=""
    [[ $cmd == compare ]] && own="-failOn=slower -failOn=any -machine= -remeasure -minEffect="
    COMPREPLY=($(compgen -W "KEYS $own" -- "$cur"))
  elif [[ $COMP_CWORD == 1 ]]; then
    COMPREPLY=($(compgen -W "COMMANDS" -- "$cur"))
  elif [[ ($cmd == measure || $cmd == history || $cmd == compare) && $COMP_CWORD == 2 ]]; then
    COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" list --names 2>/dev/null)" -- "$cur")
      $(compgen -f -X '!*.lua' -- "$cur"))
  elif [[ $cmd == help ]]; then
    COMPREPLY=($(compgen -W "COMMANDS" -- "$cur"))
  elif [[ $cmd == cache ]]; then
    COMPREPLY=($(compgen -W "clear" -- "$cur"))
  fi
}
complete -F _rot rot ./rot
]==]):gsub("KEYS", table.concat(keys, " ")):gsub("COMMANDS", table.concat(M.command_names(), " "))
  io.stdout:write(script)
  return 0
end

return M
