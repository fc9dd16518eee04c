-- rot.describe.cuda: a CUDA program told apart by its ELF file, on files built here: the CUDA
-- runtime among its DT_NEEDED, or device code in its sections; a file read in place (program)
-- says what its whole text says (what), a large one included; not an ELF file, or one cut short: none.
-- judges no time
local t = require "tap"
local sys = require "rot.sys"
local cuda = require "rot.describe.cuda"

local dir = (os.getenv("ROT_TEST_TMP") or (os.tmpname() .. ".d")) .. "/describe-cuda"
assert(sys.mkdir(dir))

-- A 64-bit little-endian ELF file: its sections {name=, type=, data=, link=}, their data after
-- the header, the section headers last (after pad bytes: a large program's code).
local function elf(secs, pad)
  local names, body = "\0", {}
  local at = 64
  local hdrs = { string.rep("\0", 64) }
  local shstr = #secs + 1
  secs[#secs + 1] = { name = ".shstrtab", type = 3 }
  local offs = {}
  for i, s in ipairs(secs) do offs[i], names = #names, names .. s.name .. "\0" end
  secs[#secs].data = names
  for i, s in ipairs(secs) do
    hdrs[#hdrs + 1] = string.pack("<I4I4I8I8I8I8I4I4I8I8", offs[i], s.type, 0, 0, at, #s.data, s.link or 0, 0, 1, 0)
    body[#body + 1] = s.data
    at = at + #s.data
  end
  local shoff = at + (pad or 0)
  local head = "\127ELF" .. string.char(2, 1, 1) .. string.rep("\0", 9) ..
    string.pack("<I2I2I4I8I8I8I4I2I2I2I2I2I2", 2, 62, 1, 0, 0, shoff, 0, 64, 56, 0, 64, #hdrs, shstr)
  return head .. table.concat(body) .. string.rep("\0", pad or 0) .. table.concat(hdrs)
end

-- A dynamic section needing libs (its strings in section link).
local function dynamic(libs, link)
  local strs, dyn = "\0", ""
  for _, l in ipairs(libs) do
    dyn = dyn .. string.pack("<i8I8", 1, #strs)
    strs = strs .. l .. "\0"
  end
  return { name = ".dynstr", type = 3, data = strs }, { name = ".dynamic", type = 6, data = dyn ..
    string.pack("<i8I8", 0, 0), link = link }
end

local function write(name, text)
  local path = dir .. "/" .. name
  assert(sys.writefile(path, text, 493))
  return path
end

local dynstr, dyn = dynamic({ "libm.so.6", "libcudart.so.13", "libc.so.6" }, 1)
local shared = elf({ dynstr, dyn })
t.is(table.concat(cuda.needed(shared), " "), "libm.so.6 libcudart.so.13 libc.so.6", "its DT_NEEDED names")
t.is(cuda.what(shared), "libcudart.so.13", "one needing the CUDA runtime is one, by that library")
t.is(cuda.program(write("shared", shared)), "libcudart.so.13", "the same read from its file")

local dynstr2, dyn2 = dynamic({ "libc.so.6" }, 1)
local static = elf({ dynstr2, dyn2, { name = ".nv_fatbin", type = 1, data = "fatbin" } })
t.is(cuda.what(static), "CUDA device code (.nv_fatbin)", "one with device code in its sections is one")
local big = elf({ dynstr2, dyn2, { name = ".nv_fatbin", type = 1, data = "fatbin" } }, 8 << 20)
t.is(cuda.program(write("big", big)), "CUDA device code (.nv_fatbin)",
  "a file of 8 MB, its section headers at its end, read in place")

local plain = elf({ dynstr2, dyn2 })
t.is(cuda.what(plain), nil, "a program of neither is none")
t.is(cuda.program(write("plain", plain)), nil, "nor is its file")
t.is(cuda.program(write("script", "#!/bin/sh\necho hi\n")), nil, "a script is none")
t.is(cuda.program(write("cut", static:sub(1, 100))), nil, "an ELF file cut short is none")
t.is(cuda.program(dir .. "/absent"), nil, "a file that is not there is none")
t.is(cuda.needed("#!/bin/sh\n"), nil, "a script has no DT_NEEDED")

t.done()
