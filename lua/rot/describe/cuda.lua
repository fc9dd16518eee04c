-- rot.describe.cuda: whether a program is a CUDA one, read from its ELF file (no readelf, no
-- ldd): the CUDA runtime or driver among its DT_NEEDED, or CUDA device code in its sections.
-- Only the parts that say it are read (the header, the section headers, their names, the
-- dynamic section and its strings): a few kilobytes of a program of any size.

local M = {}

-- The libraries that make a program a CUDA one when it needs them.
local RUNTIME = { "^libcudart%.so", "^libcuda%.so" }
-- The sections nvcc puts device code in (a program with the runtime linked statically has them).
local DEVICE_CODE = { [".nv_fatbin"] = true, [".nvFatBinSegment"] = true }
-- Past these a file is no program rot reads (a section table, a table of names).
local MAX_SECTIONS, MAX_NAMES = 65535, 16 << 20

-- A reader of an ELF file's bytes: at(offset, n) -> the n bytes at offset (0-based), or nil.
local function text_reader(text)
  return function(off, n)
    if off < 0 or n < 0 or off + n > #text then return nil end
    return text:sub(off + 1, off + n)
  end
end

local function file_reader(f)
  return function(off, n)
    if off < 0 or n < 0 or not f:seek("set", off) then return nil end
    local s = n == 0 and "" or f:read(n)
    return s and #s == n and s or nil
  end
end

-- A NUL-ended string at offset at of bytes s (0-based): "" where there is none.
local function cstring(s, at)
  return s and at < #s and s:match("^[^%z]*", at + 1) or ""
end

-- A 64-bit little-endian ELF's section headers {name=, type=, offset=, size=, link=} (0-based,
-- and their count), or nil: not such a file, or one cut short.
local function sections(at)
  local eh = at(0, 64)
  if not eh or eh:sub(1, 4) ~= "\127ELF" or eh:byte(5) ~= 2 or eh:byte(6) ~= 1 then return nil end
  local shoff = string.unpack("<I8", eh, 41)
  local shentsize, shnum, shstrndx = string.unpack("<I2I2I2", eh, 59)
  -- (an ELF64 section header is 64 bytes: another size, up to 65535, would have the table's
  -- read ask for up to 4 GB)
  if shoff == 0 or shentsize ~= 64 or shnum > MAX_SECTIONS then return nil end
  local tab = at(shoff, shnum * shentsize)
  if not tab then return nil end
  local out = {}
  for i = 0, shnum - 1 do
    local name, stype, _, _, offset, size, link = string.unpack("<I4I4I8I8I8I8I4", tab, i * shentsize + 1)
    out[i] = { name = name, type = stype, offset = offset, size = size, link = link }
  end
  local strtab = out[shstrndx]
  local names = strtab and strtab.size <= MAX_NAMES and at(strtab.offset, strtab.size)
  for i = 0, shnum - 1 do out[i].name = cstring(names, out[i].name) end
  return out, shnum
end

-- The DT_NEEDED names of the file at reader at (nil: not a 64-bit little-endian ELF file).
local function needed(at)
  local secs, n = sections(at)
  if not secs then return nil end
  local out = {}
  for i = 0, n - 1 do
    local s = secs[i]
    local strs = secs[s.link]
    if s.type == 6 and strs and s.size <= MAX_NAMES and strs.size <= MAX_NAMES then -- SHT_DYNAMIC
      local dyn, str = at(s.offset, s.size), at(strs.offset, strs.size)
      for off = 0, (dyn and #dyn or 0) - 16, 16 do
        local tag, val = string.unpack("<i8I8", dyn, off + 1)
        if tag == 0 then break end
        if tag == 1 then out[#out + 1] = cstring(str, val) end -- DT_NEEDED
      end
    end
  end
  return out
end

-- Why the file at reader at is a CUDA program, or nil.
local function what(at)
  for _, lib in ipairs(needed(at) or {}) do
    for _, p in ipairs(RUNTIME) do if lib:match(p) then return lib end end
  end
  local secs, n = sections(at)
  for i = 0, (secs and n or 0) - 1 do
    if DEVICE_CODE[secs[i].name] then return "CUDA device code (" .. secs[i].name .. ")" end
  end
  return nil
end

--[[ needed(text) -> the DT_NEEDED names of an ELF file's text (a list; nil: not a 64-bit
  little-endian ELF file, as x86-64 and aarch64 Linux programs are). ]]
function M.needed(text) return needed(text_reader(text)) end

--[[ what(text) -> why an ELF file's text is a CUDA program ("libcudart.so.13", "CUDA device
  code (.nv_fatbin)"), or nil when it is none. ]]
function M.what(text) return what(text_reader(text)) end

-- Why the program at path is a CUDA program, or nil (not one, or not an ELF file: a script).
function M.program(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local why = what(file_reader(f))
  f:close()
  return why
end

return M
