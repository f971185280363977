"use strict";
// gzguide for VS Code: runs `gz complexity guide --lsp` for Python files through
// vscode-languageclient. Diagnostics, hovers and code actions are the server's own; this
// file only finds the command, passes the settings, and shows the server's state.

const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const vscode = require("vscode");
const { LanguageClient, RevealOutputChannelOn, State } = require("vscode-languageclient/node");

const SECTION = "gzguide";
const PYTHON_EXTENSION = "ms-python.python";
const GZ = process.platform === "win32" ? "gz.exe" : "gz";

/** What the extension holds while it is active. */
const session = {
  /** @type {LanguageClient | undefined} */ client: undefined,
  /** @type {vscode.OutputChannel | undefined} */ output: undefined,
  /** @type {vscode.StatusBarItem | undefined} */ status: undefined,
  // Starts and stops run one after the other: a settings change during a start waits.
  queue: Promise.resolve(),
  restarting: false,
  ran: false,
};

/** Expands `${workspaceFolder}` and a leading `~` in a path from the settings. */
function expand(value, folder) {
  const home = value === "~" || value.startsWith("~/") ? os.homedir() + value.slice(1) : value;
  return folder ? home.split("${workspaceFolder}").join(folder.uri.fsPath) : home;
}

/** The Python extension's API, or undefined: it is optional. */
async function pythonApi() {
  const extension = vscode.extensions.getExtension(PYTHON_EXTENSION);
  if (!extension) {
    return undefined;
  }
  try {
    return extension.isActive ? extension.exports : await extension.activate();
  } catch {
    return undefined;
  }
}

/** The interpreter of the environment the Python extension has selected for `folder`. */
async function selectedInterpreter(api, folder) {
  const environments = api && api.environments;
  if (!environments || typeof environments.getActiveEnvironmentPath !== "function") {
    return undefined;
  }
  const active = environments.getActiveEnvironmentPath(folder && folder.uri);
  const resolved = await environments.resolveEnvironment(active);
  return resolved && resolved.executable && resolved.executable.uri
    ? resolved.executable.uri.fsPath
    : active && active.path;
}

/** The `gz` installed beside the selected interpreter (bin/, or Scripts\ on Windows). */
async function environmentGz(folder) {
  try {
    const interpreter = await selectedInterpreter(await pythonApi(), folder);
    if (!interpreter) {
      return undefined;
    }
    const dir = path.dirname(interpreter);
    return [path.join(dir, GZ), path.join(dir, "Scripts", GZ)].find((p) => fs.existsSync(p));
  } catch {
    return undefined;
  }
}

/** The command to run and where it came from (shown in the log). */
async function serverCommand(settings, folder) {
  const configured = settings.get("path", "");
  if (configured) {
    return { command: expand(configured, folder), from: "the gzguide.path setting" };
  }
  const fromEnvironment = await environmentGz(folder);
  if (fromEnvironment) {
    return { command: fromEnvironment, from: "the selected Python environment" };
  }
  return { command: "gz", from: "PATH" };
}

/** The server's arguments: the workspace root, the log file, then the user's own. */
function serverArgs(settings, folder) {
  const args = ["complexity", "guide", "--lsp"];
  if (folder) {
    args.push("--root", folder.uri.fsPath);
  }
  const logFile = settings.get("logFile", "");
  if (logFile) {
    args.push("--log-file", expand(logFile, folder));
  }
  return args.concat(settings.get("args", []));
}

/** The LSP mode's `initializationOptions` (docs/lsp.md, initialize). */
function initializationOptions(settings) {
  return {
    debounceMs: settings.get("debounceMs", 150),
    census: settings.get("census", "new"),
    unsafeFixes: settings.get("unsafeFixes", false),
  };
}

/** A client for the first workspace folder (or none: files are then analyzed alone). */
async function newClient() {
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
  const settings = vscode.workspace.getConfiguration(SECTION, folder);
  const { command, from } = await serverCommand(settings, folder);
  const args = serverArgs(settings, folder);
  const cwd = folder ? folder.uri.fsPath : undefined;
  session.output.appendLine(`Starting ${command} ${args.join(" ")} (the command from ${from})`);
  // No transport named: stdio all the same, without the `--stdio` that naming it adds
  // (which a gz older than the extension refuses).
  const server = { command, args, options: { cwd } };
  const client = new LanguageClient(SECTION, "gzguide", server, {
    documentSelector: [
      { scheme: "file", language: "python" },
      { scheme: "untitled", language: "python" },
    ],
    initializationOptions: initializationOptions(settings),
    outputChannel: session.output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
  });
  // A client being replaced still reports its stop: only the current one is shown.
  client.onDidChangeState((change) => session.client === client && showState(change.newState));
  return client;
}

const LOOKS = {
  running: { icon: "$(pass)", tooltip: "gzguide is running: click for its log" },
  starting: { icon: "$(sync~spin)", tooltip: "gzguide is starting" },
  restarting: { icon: "$(sync~spin)", tooltip: "gzguide is restarting" },
  stopped: { icon: "$(circle-slash)", tooltip: "gzguide is stopped: click for its log" },
};

/** The status bar item's text: `gzguide 0.1.0` once running, else the state. */
function showStatus(state) {
  const look = LOOKS[state];
  const result = session.client && session.client.initializeResult;
  const version = result && result.serverInfo && result.serverInfo.version;
  const label = state === "running" ? `gzguide ${version || ""}`.trim() : `gzguide: ${state}`;
  session.status.text = `${look.icon} ${label}`;
  session.status.tooltip = look.tooltip;
}

/** Follows the client's state; it restarts by itself a server that died, so a start
 * after the server has run once is a restart too. */
function showState(state) {
  if (state === State.Running) {
    session.restarting = false;
    session.ran = true;
    showStatus("running");
    return;
  }
  const again = session.restarting || (state === State.Starting && session.ran);
  showStatus(again ? "restarting" : state === State.Starting ? "starting" : "stopped");
}

async function startClient() {
  session.client = await newClient();
  try {
    await session.client.start();
  } catch (error) {
    // vscode-languageclient has said so in a notification that opens this channel.
    session.restarting = false;
    showStatus("stopped");
    session.output.appendLine(
      `The server did not start (${error}): is gz installed (pip install gzguide)? ` +
        "The gzguide.path setting names the command to run.",
    );
  }
}

async function stopClient() {
  const client = session.client;
  session.client = undefined;
  if (client && client.needsStop()) {
    await client.stop().catch((error) => session.output.appendLine(`Stop: ${error}`));
  }
}

/** Runs `step` after every start or stop asked for before it. */
function enqueue(step) {
  session.queue = session.queue.then(step, step);
  return session.queue;
}

function restart() {
  return enqueue(async () => {
    session.restarting = true;
    showStatus("restarting");
    await stopClient();
    await startClient();
  });
}

/** Restarts when the selected environment changes, if that is where `gz` comes from. */
async function followPythonEnvironment(context) {
  const api = await pythonApi();
  const environments = api && api.environments;
  if (!environments || !environments.onDidChangeActiveEnvironmentPath) {
    return;
  }
  const listener = environments.onDidChangeActiveEnvironmentPath(() => {
    if (!vscode.workspace.getConfiguration(SECTION).get("path", "")) {
      restart();
    }
  });
  context.subscriptions.push(listener);
}

function activate(context) {
  session.output = vscode.window.createOutputChannel("gzguide");
  session.status = vscode.window.createStatusBarItem("gzguide.status", vscode.StatusBarAlignment.Right);
  session.status.name = "gzguide";
  session.status.command = "gzguide.showLog";
  showStatus("starting");
  session.status.show();
  context.subscriptions.push(
    session.output,
    session.status,
    vscode.commands.registerCommand("gzguide.restart", restart),
    vscode.commands.registerCommand("gzguide.showLog", () => session.output.show(true)),
    vscode.workspace.onDidChangeConfiguration((change) => {
      if (change.affectsConfiguration(SECTION) && !change.affectsConfiguration(`${SECTION}.trace`)) {
        restart();
      }
    }),
  );
  followPythonEnvironment(context);
  return enqueue(startClient);
}

function deactivate() {
  return enqueue(stopClient);
}

module.exports = { activate, deactivate };
