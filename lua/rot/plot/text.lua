-- rot.plot.text: how wide and tall a label's text is drawn: Helvetica's advance widths, each
-- terminal's em and character offsets, and a text's ink below and above its anchor.
local M = {}

-- Helvetica's advance widths (its AFM, thousandths of an em) of the printable ASCII characters,
-- space first; the fonts terminals draw "Helvetica" with (Nimbus Sans, Liberation Sans, Arial)
-- share them. Any other character counts as 0.6 em.
local WIDTHS = {
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556,
  556, 556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500,
  667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, 333,
  556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500,
  722, 500, 500, 500, 334, 260, 334, 584
}

-- The width of a text in ems (UTF-8: a character is a sequence, a stray byte one character).
local widths = {} -- by text: a label tried at many places is measured once
function M.width(s)
  local w = widths[s]
  if w then return w end
  w = 0
  for ch in s:gmatch("[\0-\127\192-\255][\128-\191]*") do w = w + (WIDTHS[ch:byte() - 31] or 600) / 1000 end
  widths[s] = w
  return w
end

--[[ How each terminal draws a label of font size f, in pixels of the canvas (gnuplot 5.4,
  measured): its em (the SVG's f px; pngcairo's text at 96 dpi, a third larger; pdfcairo's
  smaller), and one character of an `offset`, which the terminal's own font sets (rot.plot's
  finish: svg "Helvetica,11", pngcairo "Helvetica,9", pdfcairo "Helvetica,9" on 10 in). ]]
M.terminals = {
  { name = "svg", em = 1, hchar = 7.7, vchar = 16.5 },
  { name = "png", em = 4 / 3, hchar = 7, vchar = 12 },
  { name = "pdf", em = 0.907, hchar = 4.75, vchar = 8.4 },
}
-- A line of text's ink below and above its anchor, in ems, in every terminal (gnuplot centres
-- text about its capitals): its baseline 0.44 below, descenders and parentheses 0.68 (any
-- character not ASCII counts as one), capitals 0.46 above.
local BASELINE, BELOW, ABOVE = 0.44, 0.68, 0.46
M.ABOVE = ABOVE
local belows = {} -- by text, as widths are
function M.below(text)
  local b = belows[text]
  if not b then
    b = text:find("[gjpqyQ,;()%[%]{}|_@$\128-\255]") and BELOW or BASELINE
    belows[text] = b
  end
  return b
end

-- How far a text reaches below and above its anchor, in ems.
function M.ink_of(text) return M.below(text), ABOVE end

-- The largest em of a font size f among the terminals, in pixels.
local function em(f)
  local m = 0
  for _, t in ipairs(M.terminals) do m = math.max(m, t.em * f) end
  return m
end

-- How far any text of font size f reaches below and above its anchor, in pixels, in every
-- terminal: how far a label keeps its anchor from a line it labels.
function M.ink(f) return BELOW * em(f), ABOVE * em(f) end

return M
