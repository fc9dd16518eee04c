-- rot.describe.cuda: whether a program is a CUDA one, read from its ELF file (no readelf, no
-- ldd): the CUDA runtime or driver among its DT_NEEDED, or CUDA device code in its sections.
local sys = require "rot.sys"

local M = {}

-- The libraries that make a program a CUDA one when it needs them.
local RUNTIME = { "^libcudart%.so", "^libcuda%.so" }
-- The sections nvcc puts device code in (a program with the runtime linked statically has them).
local DEVICE_CODE = { [".nv_fatbin"] = true, [".nvFatBinSegment"] = true }

-- A 64-bit little-endian ELF's section headers {name=, type=, offset=, size=, link=}, or nil.
local function sections(text)
  if #text < 64 or text:sub(1, 4) ~= "\127ELF" or text:byte(5) ~= 2 or text:byte(6) ~= 1 then return nil end
  local shoff = string.unpack("<I8", text, 41)
  local shentsize, shnum, shstrndx = string.unpack("<I2I2I2", text, 59)
  if shoff == 0 or shentsize < 64 or shoff + shnum * shentsize > #text then return nil end
  local out = {}
  for i = 0, shnum - 1 do
    local at = shoff + i * shentsize + 1
    local name, stype, _, _, offset, size, link = string.unpack("<I4I4I8I8I8I8I4", text, at)
    out[i] = { name = name, type = stype, offset = offset, size = size, link = link }
  end
  local strtab = out[shstrndx]
  for i = 0, shnum - 1 do
    local s = out[i]
    s.name = strtab and strtab.offset + s.name < #text and text:match("^[^%z]*", strtab.offset + s.name + 1) or ""
  end
  return out, shnum
end

--[[ needed(text) -> the DT_NEEDED names of an ELF file's text (a list; nil: not a 64-bit
  little-endian ELF file, as x86-64 and aarch64 Linux programs are). ]]
function M.needed(text)
  local secs, n = sections(text)
  if not secs then return nil end
  local out = {}
  for i = 0, n - 1 do
    local s = secs[i]
    if s.type == 6 and secs[s.link] then -- SHT_DYNAMIC, its strings in section link
      local str = secs[s.link].offset
      for at = s.offset, s.offset + s.size - 16, 16 do
        local tag, val = string.unpack("<i8I8", text, at + 1)
        if tag == 0 then break end
        if tag == 1 then out[#out + 1] = text:match("^[^%z]*", str + val + 1) end -- DT_NEEDED
      end
    end
  end
  return out
end

--[[ what(text) -> why an ELF file's text is a CUDA program ("libcudart.so.13", "CUDA device
  code (.nv_fatbin)"), or nil when it is none. ]]
function M.what(text)
  for _, lib in ipairs(M.needed(text) or {}) do
    for _, p in ipairs(RUNTIME) do if lib:match(p) then return lib end end
  end
  local secs, n = sections(text)
  for i = 0, (secs and n or 0) - 1 do
    if DEVICE_CODE[secs[i].name] then return "CUDA device code (" .. secs[i].name .. ")" end
  end
  return nil
end

-- Why the program at path is a CUDA program, or nil (not one, or not an ELF file: a script).
function M.program(path)
  local text = sys.readfile(path)
  return text and M.what(text) or nil
end

return M
