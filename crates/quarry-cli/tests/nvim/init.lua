-- A minimal Neovim configuration attaching `quarry server` to one file and
-- writing the diagnostics it received, one per line, to $QUARRY_OUT:
-- `code<TAB>line<TAB>column<TAB>message` (0-based line and column).
-- Written for Neovim 0.7 (Debian's) and later.
local bin, root, file, out = vim.env.QUARRY_BIN, vim.env.QUARRY_ROOT, vim.env.QUARRY_FILE, vim.env.QUARRY_OUT

vim.cmd('edit ' .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
local client = vim.lsp.start_client({ name = 'quarry', cmd = { bin, 'server' }, root_dir = root })
vim.lsp.buf_attach_client(buf, client)

-- Wait for the first diagnostics, then a little longer for any refresh.
vim.wait(60000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
vim.wait(500, function() return false end, 50)

local lines = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  local lsp = d.user_data and d.user_data.lsp or {}
  local code = d.code or lsp.code or ''
  table.insert(lines, string.format('%s\t%d\t%d\t%s', code, d.lnum, d.col, d.message))
end
table.sort(lines)
vim.fn.writefile(lines, out)
vim.lsp.stop_client(client)
vim.cmd('qa!')
