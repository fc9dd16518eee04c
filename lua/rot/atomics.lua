-- rot.atomics: shared-memory atomic utilization (Dong & Pai): the measured table T(n, e, c)
-- of a GPU model, the service time S = T / n by linear interpolation over non-integral
-- inputs (equations 1-3), and per-SM utilization from counters (their Table 2).
local M = {}

--[[ A table from rows { {n=, e=, c=, t=cycles}, ... } (integral n >= 1, 1 <= e <= 32,
  0 <= c <= n). Returns an object for M.T / M.S. ]]
function M.table(rows)
  local t = { data = {}, nmax = 0, emax = 0 }
  for _, r in ipairs(rows) do
    t.data[r.n] = t.data[r.n] or {}
    t.data[r.n][r.e] = t.data[r.n][r.e] or {}
    t.data[r.n][r.e][r.c] = r.t
    t.nmax = math.max(t.nmax, r.n)
    t.emax = math.max(t.emax, r.e)
  end
  return t
end

local function lerp(a, b, f) return a + (b - a) * f end

-- T at integral n, interpolated over e and c (c clamped to 0..n).
local function t_at_n(tab, n, e, c)
  if n == 0 then return 0 end -- equation (1): no jobs, no time
  local row = tab.data[n]
  if not row then error("T(n, e, c) has no samples for n = " .. n, 3) end
  c = math.max(0, math.min(c, n))
  -- the sampled e values around e (every integral e when the table is complete)
  local e0, e1
  for ee in pairs(row) do
    if ee <= e and (not e0 or ee > e0) then e0 = ee end
    if ee >= e and (not e1 or ee < e1) then e1 = ee end
  end
  e0, e1 = e0 or e1, e1 or e0
  local c0, c1 = math.floor(c), math.ceil(c)
  local function at(ee, cc)
    local v = row[ee] and row[ee][cc]
    if not v then error(string.format("T(n, e, c) has no sample for n=%d e=%d c=%d", n, ee, cc), 4) end
    return v
  end
  local fe, fc = e1 > e0 and (e - e0) / (e1 - e0) or 0, c - c0
  return lerp(lerp(at(e0, c0), at(e0, c1), fc), lerp(at(e1, c0), at(e1, c1), fc), fe)
end

-- Equation (2): T(n, e, c) by linear interpolation; n in 0..nmax, e in 1..emax, c in 0..n.
function M.T(tab, n, e, c)
  if n < 0 or n > tab.nmax then error("n = " .. n .. " is outside the measured 0.." .. tab.nmax, 2) end
  e = math.max(1, math.min(e, tab.emax))
  local n0, n1 = math.floor(n), math.ceil(n)
  return lerp(t_at_n(tab, n0, e, c), t_at_n(tab, n1, e, c), n - n0)
end

-- Equation (3): service time per job.
function M.S(tab, n, e, c)
  return n > 0 and M.T(tab, n, e, c) / n or 0
end

--[[ Utilization from counters (Table 2). sms = { {fao=, cas=, occupancy= (achieved, 0..1),
  cycles= (kernel time on that SM)}, ... } per SM, or one entry of totals when the counters
  are not per SM (then say so: per_sm = false). ops = atomic thread operations in all;
  warps_per_sm = the maximum resident warps. Returns per SM {N, n, e, c, S, B, U}. ]]
function M.utilization(tab, o)
  local total = 0
  for _, s in ipairs(o.sms) do total = total + s.fao + s.cas end
  local e = total > 0 and o.ops / total or 0
  local out = { e = e, per_sm = o.per_sm ~= false, sms = {} }
  for i, s in ipairs(o.sms) do
    local N = s.fao + s.cas
    local n = s.occupancy * o.warps_per_sm
    local c = N > 0 and n * s.cas / N or 0
    local S = M.S(tab, n, e, c)
    local B = N * S
    out.sms[i] = { N = N, n = n, e = e, c = c, S = S, B = B, U = s.cycles > 0 and B / s.cycles or nil }
  end
  return out
end

return M
