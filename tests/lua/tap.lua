-- tap: TAP output for Lua tests run with `rot run`: ok(), skip(), is(), raises(), capture(), done().
local M = { n = 0, failed = 0 }

function M.ok(cond, name)
  M.n = M.n + 1
  if not cond then M.failed = M.failed + 1 end
  io.write(cond and "ok " or "not ok ", M.n, " - ", name, "\n")
  return cond
end

-- A test that cannot run here: TAP's skip, which says why (never a pass).
function M.skip(why)
  M.n = M.n + 1
  io.write("ok ", M.n, " # SKIP ", why, "\n")
end

function M.is(got, want, name)
  local ok = got == want
  M.ok(ok, name)
  if not ok then io.write("#   got: ", tostring(got), "\n#   want: ", tostring(want), "\n") end
end

function M.raises(f, pattern, name)
  local ok, err = pcall(f)
  local msg = type(err) == "table" and err.message or tostring(err)
  M.ok(not ok and msg:find(pattern) ~= nil, name)
  if ok or not msg:find(pattern) then io.write("#   error was: ", tostring(msg), "\n") end
end

-- What f() writes to io.stdout or io.stderr (which: "stdout", "stderr"), captured: the text
-- (the stream is restored even when f raises, and the error raised again).
function M.capture(which, f)
  local real, tmp = io[which], io.tmpfile()
  io[which] = tmp
  local ok, err = pcall(f)
  io[which] = real
  tmp:seek("set")
  local text = tmp:read("a")
  tmp:close()
  if not ok then error(err, 0) end
  return text
end

function M.done()
  io.write("1..", M.n, "\n")
  if M.failed > 0 then error(M.failed .. " Lua test(s) failed") end
end

return M
