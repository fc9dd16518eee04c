-- rot.sys.sha256files (driver/lsys.c) with a memo: the hash kept beside the files' signature
-- (path, size, times, inode) and read from it while none changed; a file edited (its content
-- alone, its size the same) or gone hashes afresh.
-- judges no time
local t = require "tap"
local sys = require "rot.sys"

local dir = (os.getenv("ROT_TEST_TMP") or (os.tmpname() .. ".d")) .. "/sha256files"
assert(sys.mkdir(dir))
local a, b, memo = dir .. "/a.c", dir .. "/b.h", dir .. "/files.memo"
assert(sys.writefile(a, "int a;\n"))
assert(sys.writefile(b, "int b;\n"))
local files = { a, b }

local plain = sys.sha256files(files, { dir })
t.ok(sys.sha256files(files, { dir }, false, memo) == plain and sys.readfile(memo) ~= nil,
  "with a memo: the same hash, and the memo kept")

-- the memo is read while the signature holds: a hash written into it by hand is returned
local kept = assert(sys.readfile(memo))
local forged = kept:sub(1, 65) .. string.rep("0", 64) .. "\n"
assert(sys.writefile(memo, forged))
t.ok(sys.sha256files(files, { dir }, false, memo) == string.rep("0", 64),
  "a memo whose signature matches the files is read, the files not hashed again")

-- a file's content changed, its size the same: hashed afresh
assert(sys.writefile(a, "int c;\n"))
local edited = sys.sha256files(files, { dir })
t.ok(edited ~= plain and sys.sha256files(files, { dir }, false, memo) == edited,
  "a file edited to the same size: its new hash, not the memo's")

-- a file gone (missing_ok): hashed afresh, as without a memo
os.remove(b)
t.ok(sys.sha256files(files, { dir }, true, memo) == sys.sha256files(files, { dir }, true),
  "a file gone: hashed as missing, not served from the memo")

-- a memo cut short is not read
assert(sys.writefile(memo, kept:sub(1, 40)))
t.ok(sys.sha256files(files, { dir }, true, memo) == sys.sha256files(files, { dir }, true),
  "a memo cut short: hashed afresh")

sys.removetree(dir)
t.done()
