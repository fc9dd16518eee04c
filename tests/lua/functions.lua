-- The Lua functions of the files under the folders given (tests/structure.t: lua), each with its
-- file, first line and length, one "FILE:LINE NAME (N lines)" line for every function longer
-- than the limit (first argument). A small Lua lexer: strings, long strings and comments are
-- skipped; function, if, do (of while and for too) and repeat open blocks, end and until close
-- them.
local sys = require "rot.sys"

local limit = tonumber(arg[1]) or 80

-- The tokens of Lua source that matter for blocks: {word=, line=}.
local function words(src)
  local out, i, line, n = {}, 1, 1, #src
  local function skip_long(at) -- a long bracket at `at` ("[", "=" * k, "["): past its close
    local eq = src:match("^%[(=*)%[", at)
    if not eq then return nil end
    local close = "]" .. eq .. "]"
    local j = src:find(close, at, true) or n
    local _, nl = src:sub(at, j):gsub("\n", "")
    line = line + nl
    return j + #close
  end
  while i <= n do
    local c = src:sub(i, i)
    if c == "\n" then
      line, i = line + 1, i + 1
    elseif src:sub(i, i + 1) == "--" then
      i = skip_long(i + 2) or (src:find("\n", i, true) or n + 1)
    elseif c == '"' or c == "'" then
      local j = i + 1
      while j <= n and src:sub(j, j) ~= c do j = j + (src:sub(j, j) == "\\" and 2 or 1) end
      i = j + 1
    elseif c == "[" and src:match("^%[=*%[", i) then
      i = skip_long(i)
    elseif c:match("[%a_]") then
      local w = src:match("^[%w_]+", i)
      out[#out + 1] = { word = w, line = line, name = w == "function" and src:match("^function%s*([%w_.:]*)", i) }
      i = i + #w
    else
      i = i + 1
    end
  end
  return out
end

-- The long functions of one file, reported.
local function check(path)
  local src = assert(sys.readfile(path))
  local stack = {}
  for _, t in ipairs(words(src)) do
    local w = t.word
    if w == "function" or w == "if" or w == "do" or w == "repeat" then
      stack[#stack + 1] = t
    elseif (w == "end" or w == "until") and #stack > 0 then
      local open = table.remove(stack)
      local len = t.line - open.line + 1
      if open.word == "function" and len > limit then
        io.stdout:write(string.format("%s:%d %s (%d lines)\n", path, open.line,
          open.name ~= "" and open.name or "function", len))
      end
    end
  end
end

-- Every .lua file under dir, sorted.
local function files(dir, out)
  for _, f in ipairs(sys.listdir(dir) or {}) do
    local p = dir .. "/" .. f
    if sys.stat(p) == "dir" then files(p, out) elseif f:match("%.lua$") then out[#out + 1] = p end
  end
  return out
end

for k = 2, #arg do
  local list = files(arg[k], {})
  table.sort(list)
  for _, p in ipairs(list) do check(p) end
end
