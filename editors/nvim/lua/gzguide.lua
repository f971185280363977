-- gzguide for Neovim (0.7 or newer): complexity hints as diagnostics, through
-- `gz complexity guide --lsp`, for every Python buffer.
--
--   vim.opt.runtimepath:append("/path/to/gzguide/editors/nvim")
--   require("gzguide").setup()            -- or setup({ cmd = {...}, debounce_ms = 150, census = "all" })
--
-- One server per workspace root (the nearest folder holding .git, pyproject.toml,
-- setup.py or setup.cfg, else the file's own folder), started on the first Python
-- buffer under it and attached to every later one.
local M = {}

local defaults = {
  cmd = { "gz", "complexity", "guide", "--lsp" },
  -- How long the server waits after the last change before analyzing (ms).
  debounce_ms = 150,
  -- Where the census (a function's budget of decision points, no move) shows:
  -- "new" (definitions changed since git HEAD, or since the buffer was opened
  -- outside git), "all" or "off". Moves show everywhere.
  census = "new",
  root_markers = { ".git", "pyproject.toml", "setup.py", "setup.cfg" },
}

local config = vim.deepcopy(defaults)
local clients = {} -- root directory -> client id

local function root_of(path)
  local dir = vim.fn.fnamemodify(path, ":p:h")
  local current = dir
  while true do
    for _, marker in ipairs(config.root_markers) do
      if vim.loop.fs_stat(current .. "/" .. marker) then
        return current
      end
    end
    local parent = vim.fn.fnamemodify(current, ":h")
    if parent == current then
      return dir
    end
    current = parent
  end
end

local function client_for(root)
  local id = clients[root]
  if id and vim.lsp.get_client_by_id(id) and not vim.lsp.client_is_stopped(id) then
    return id
  end
  id = vim.lsp.start_client({
    name = "gzguide",
    cmd = vim.list_extend(vim.deepcopy(config.cmd), { "--root", root }),
    cmd_cwd = root,
    root_dir = root,
    init_options = { debounceMs = config.debounce_ms, census = config.census },
    flags = { debounce_text_changes = 0 },
  })
  clients[root] = id
  return id
end

--- Attach gzguide to buffer `bufnr` (the current one by default).
function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local name = vim.api.nvim_buf_get_name(bufnr)
  local id = client_for(root_of(name ~= "" and name or vim.fn.getcwd() .. "/untitled.py"))
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
end

--- Start gzguide for Python buffers; `opts` overrides the defaults above.
function M.setup(opts)
  config = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  local group = vim.api.nvim_create_augroup("gzguide", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = "python",
    callback = function(args)
      M.attach(args.buf)
    end,
  })
end

return M
