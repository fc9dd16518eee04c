-- rot.search (driver/lsearch.c): the modules rot's searcher loaded, in order, each by identity
-- and path; rot.util.library_stamp hashes them, so a run that loads another module, or a module
-- edited, records another stamp (the history's digest of a repeated run).
-- judges no time
local t = require "tap"
local search = require "rot.search"
local sys = require "rot.sys"
local util = require "rot.util"

local before = search.loaded()
local found
for _, l in ipairs(before) do found = found or l:match(" (/.*/lua/rot/util%.lua)$") end
t.ok(found ~= nil, "rot.util is listed by its path (" .. tostring(before[1]) .. ")")
local id = before[1] and before[1]:match("^(.-) /")
t.ok(id ~= nil and id ~= "", "each with its file's identity in front (" .. tostring(id) .. ")")

local stamp = util.library_stamp()
t.is(stamp, sys.sha256(table.concat(search.loaded(), "\n")), "the stamp hashes the list")
t.is(util.library_stamp(), stamp, "the same loads, the same stamp")

local fresh
for _, name in ipairs({ "rot.compare.plot", "rot.cli.history", "rot.models.quadrant" }) do
  if not package.loaded[name] then fresh = name; break end
end
require(fresh)
local after, at = search.loaded(), nil
for i, l in ipairs(after) do if l:find("/lua/" .. fresh:gsub("%.", "/") .. ".lua", 1, true) then at = i end end
t.ok(at ~= nil and at > #before and after[#before] == before[#before],
  "a module loaded now is appended after those before (" .. fresh .. " at " .. tostring(at) .. ")")
t.ok(util.library_stamp() ~= stamp, "and the stamp moves")
t.done()
