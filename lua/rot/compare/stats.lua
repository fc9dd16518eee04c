--[[ rot.compare.stats: the statistics verdicts rest on: the median, the distribution-free
  (sign-test) confidence interval of a median and its exact p-value, Student's t quantile, and
  the pooled spread of groups of reruns. Pure functions of numbers. ]]
local M = {}

-- The median of a list of numbers (rot.util's).
M.median = require("rot.util").median

-- P(X <= k) for X ~ Binomial(n, 1/2), exact (n up to about 1000).
function M.binomial_cdf(k, n)
  if k < 0 then return 0 end
  if k >= n then return 1 end
  local term, sum = 0.5 ^ n, 0
  for i = 0, k do
    sum = sum + term
    term = term * (n - i) / (i + 1)
  end
  return math.min(sum, 1)
end

--[[ The distribution-free confidence interval of the median of n values at least at level
  (0.99): [x(k), x(n+1-k)] of the sorted values, for the largest k whose coverage
  1 - 2 P(Bin(n, 1/2) <= k-1) reaches level (the interval the sign test inverts; it needs only
  independent draws of a continuous distribution, no symmetry). Returns lo, hi, k, coverage;
  nil (and the fewest values that would give one) when n values reach no such interval: 8 for
  99 %. ]]
function M.sign_interval(xs, level)
  local s = {}
  for i, x in ipairs(xs) do s[i] = x end
  table.sort(s)
  local n, k = #s, 0
  while k + 1 <= n / 2 and 1 - 2 * M.binomial_cdf(k, n) >= level do k = k + 1 end
  if k == 0 then
    local need = n + 1
    while 1 - 2 * M.binomial_cdf(0, need) < level do need = need + 1 end
    return nil, need
  end
  return s[k], s[n + 1 - k], k, 1 - 2 * M.binomial_cdf(k - 1, n)
end

--[[ The exact two-sided p-value of the sign test of "the median is at": values above and
  below it counted, those equal to it dropped. Returns p, above, below. ]]
function M.sign_p(xs, at)
  local above, below = 0, 0
  for _, x in ipairs(xs) do
    if x > at then above = above + 1 elseif x < at then below = below + 1 end
  end
  local n = above + below
  if n == 0 then return 1, 0, 0 end
  return math.min(1, 2 * M.binomial_cdf(math.min(above, below), n)), above, below
end

--[[ P(|T| <= t) for Student's t with df degrees of freedom (a whole number), in closed form
  (Abramowitz and Stegun 26.7.3-4): with th = atan(t / sqrt(df)), a finite series in cos(th). ]]
local function t_central(t, df)
  local th = math.atan(t / math.sqrt(df))
  local c2, s = math.cos(th) ^ 2, math.sin(th)
  if df % 2 == 1 then
    local sum, term = 1, 1
    for j = 1, (df - 3) / 2 do
      term = term * c2 * (2 * j) / (2 * j + 1)
      sum = sum + term
    end
    if df == 1 then sum = 0 end
    return 2 / math.pi * (th + s * math.cos(th) * sum)
  end
  local sum, term = 1, 1
  for j = 1, (df - 2) / 2 do
    term = term * c2 * (2 * j - 1) / (2 * j)
    sum = sum + term
  end
  return s * sum
end

--[[ The two-sided quantile of Student's t: the t with P(|T| <= t) = level, df a whole number
  >= 1 (63.66 for df 1 at 0.99, 2.576 as df grows); found by bisection on the closed form. ]]
function M.t_quantile(level, df)
  df = math.max(1, math.floor(df))
  local lo, hi = 0, 1e6
  for _ = 1, 200 do
    local mid = (lo + hi) / 2
    if t_central(mid, df) < level then lo = mid else hi = mid end
  end
  return (lo + hi) / 2
end

--[[ The pooled standard deviation of groups of values (each group: samples of one quantity,
  such as the log times of one point measured again and again by identical builds): the square
  root of the sum of squared deviations from each group's mean over sum (m - 1). Groups of one
  value add nothing. Returns s, df (0 and 0 when no group has two values). ]]
function M.pooled_sd(groups)
  local ss, df = 0, 0
  for _, g in ipairs(groups) do
    if #g >= 2 then
      local mean = 0
      for _, x in ipairs(g) do mean = mean + x end
      mean = mean / #g
      for _, x in ipairs(g) do ss = ss + (x - mean) ^ 2 end
      df = df + #g - 1
    end
  end
  if df == 0 then return 0, 0 end
  return math.sqrt(ss / df), df
end

return M
