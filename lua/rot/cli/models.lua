-- rot.cli.models: the commands that apply rot's performance models to files: rot predict
-- (quantitative GPU roofline prediction) and rot utilization (shared-memory atomics).
local sys = require "rot.sys"
local util = require "rot.util"
local rot = require "rot"
local ceilings = require "rot.machine.ceilings"
local predict = require "rot.models.predict"
local atomics = require "rot.models.atomics"

local M = {}

local function read_arg(pos, i, what)
  local path = pos[i]
  if not path then util.fail(pos[1] .. " needs " .. what, "rot help " .. pos[1]) end
  local text, err = sys.readfile(path)
  if not text then util.fail("cannot read " .. what .. " '" .. path .. "': " .. tostring(err)) end
  return text, path
end

local function profile_arg(pos, i)
  local text, path = read_arg(pos, i, "a profile")
  local rows, err = predict.read_profile(text)
  if not rows then
    util.fail("profile '" .. path .. "': " .. err,
      "export it with: ncu --csv --page raw --print-units base ... > profile.csv")
  end
  return rows
end

-- rot predict PROFILE DEVICE [MEASURED]: the quantitative roofline model on another GPU
function M.predict(pos)
  local profile = profile_arg(pos, 2)
  local dtext, dpath = read_arg(pos, 3, "a device file")
  local drows = ceilings.parse_csv(dtext)
  local device, err = nil, "no ceilings in it (name,kind,threads,value,unit rows)"
  if drows then device, err = predict.device(drows) end
  if not device then
    util.fail("device file '" .. dpath .. "': " .. err, "rot measure gpu-peaks writes one (gpu-peaks.csv)")
  end
  local measured = pos[4] and profile_arg(pos, 4)
  local recs, summary = predict.report(profile, device, measured)
  rot.records("predict", predict.columns, recs)
  if summary.mean then
    io.stdout:write(predict.summary(summary), "\n")
  elseif measured then
    io.stdout:write("no measured kernel matches a profiled one by name: no APE\n")
  end
  return 0
end

-- rot utilization PROFILE TABLE: Dong & Pai's shared-atomic utilization of profiled kernels
function M.utilization(pos)
  local profile = profile_arg(pos, 2)
  local text, tpath = read_arg(pos, 3, "a T(n, e, c) table")
  local rows, err = atomics.read_csv(text)
  if not rows then util.fail("table '" .. tpath .. "': " .. err, "rot measure gpu-atomics writes one per GPU model") end
  local recs = atomics.report(profile, atomics.table(rows))
  io.stdout:write("# per-SM averages: the CUPTI Profiling API and Nsight Compute aggregate over SMs\n")
  rot.records("utilization", { { "kernel", "kernel" }, { "N_jobs", "N", "%.4g" }, { "e", "e", "%.2f" },
    { "n_hat", "n", "%.2f" },
    { "c", "c", "%.2f" }, { "S_cycles", "S", "%.3g" }, { "busy_cycles", "B", "%.4g" }, { "cycles", "cycles", "%.4g" },
    { "utilization_pct", function(r) return r.U and r.U * 100 end, "%.1f" }, { "error", "error" } }, recs)
  return 0
end

return M
