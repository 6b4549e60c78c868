// The window: first-run settings, then the chats (sidebar), the open chat (messages, cards,
// status line, message box), its task panel, and the workspace's checkpoints (a task's or the
// plan's diff, a restore) in dialogs. Talks to the shell through lib/api.ts only.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";

import type { AppSettings } from "./generated/AppSettings";
import type { Chat } from "./generated/Chat";
import type { SettingsUpdate } from "./generated/SettingsUpdate";
import type { AppInfo } from "./generated/desktop/AppInfo";
import { api, asApiError } from "./lib/api";
import { warmUpMarkdown } from "./lib/markdown";
import { activeCard, draftedText, statusText, taskCounts } from "./lib/chatState";
import { describeError } from "./lib/errorText";
import { saidByNotice } from "./lib/notices";
import { tellShell, useOpenChat } from "./lib/notifications";
import { t, useLanguage } from "./lib/i18n";
import { useChat } from "./lib/useChat";
import { NO_CHATS, withFirstPage, withNextPage, withoutChat, type LoadedChats } from "./lib/chatList";
import { useCheckpoints } from "./lib/useCheckpoints";
import { useModels } from "./lib/useModels";
import { useRunning } from "./lib/useRunning";
import { FILES, MCP, PROVIDERS, skillsOf } from "./lib/sources";
import { exportChatTo, importChatFrom } from "./lib/transfer";
import { forkChat, forkIntoFolder, type Forked } from "./lib/fork";
import { blindModel } from "./lib/vision";
import { CheckpointDialogs, forkBeforeTask, planDiff, restoreBeforeTask, taskDiff, undoTurn, type CheckpointDialog } from "./components/CheckpointDialogs";
import { ChatMenu } from "./components/ChatMenu";
import { ChatOptions } from "./components/ChatOptions";
import { Composer, lockedNotice } from "./components/Composer";
import { FoldPanel, FoldToggle, useFolds } from "./components/Fold";
import { ImageSource } from "./components/ImageThumbnails";
import { Messages, typedByUser } from "./components/Messages";
import { ModelPicker } from "./components/ModelPicker";
import { ContextMeterView, UsageLine } from "./components/Usage";
import { ModelNotice } from "./components/ModelNotice";
import { useModelInstalls } from "./components/ModelManager";
import { Settings } from "./components/Settings";
import { SearchChats } from "./components/SearchChats";
import { Sidebar } from "./components/Sidebar";
import { TaskPanel } from "./components/TaskPanel";
import { SandboxNotice } from "./components/SandboxNotice";
import { ScopeBar } from "./components/ScopeBar";
import { WorkspaceBar } from "./components/WorkspaceBar";
import { WorktreeSection } from "./components/WorktreeBar";

/** `mcp`: the settings screen opens at MCP servers (to sign in to one); `providers`: at the
 *  providers (to set prices). */
type Screen = { kind: "loading" } | { kind: "settings"; firstRun: boolean; problem: string | null; at?: "mcp" | "providers" } | { kind: "chats" };

/** Tells the shell (and the start-up measurement) that the first screen is interactive. */
function markReady() {
  void api.uiReady().then((ms) => {
    document.documentElement.dataset.startupMs = String(ms);
    document.documentElement.dataset.ready = "1";
    warmUpMarkdown();
  });
}

export function App() {
  // Settings → Language re-renders the whole window in the new language.
  const language = useLanguage();
  const [screen, setScreen] = useState<Screen>({ kind: "loading" });
  const [settings, setSettings] = useState<AppSettings | null>(null);
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [loaded, setLoaded] = useState<LoadedChats>(NO_CHATS);
  const chats = loaded.chats;
  const [selected, setSelected] = useState<string | null>(null);
  /** The message a search hit opened the selected chat at; null: its latest messages. */
  const [openAt, setOpenAt] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const [banner, setBanner] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [searching, setSearching] = useState(false);
  const [dialog, setDialog] = useState<CheckpointDialog | null>(null);
  const folds = useFolds();
  const checkpoints = useCheckpoints(selected, generation);
  const chat = useChat(selected, generation, checkpoints.onEvent, openAt);
  const models = useModels(api.listModels, generation);
  const running = useRunning(api, generation);
  /** Bumped to open the header's model picker from elsewhere (the message box). */
  const [pickerRequest, setPickerRequest] = useState(0);
  /** The shown chat's images, read from its attachment copies (thumbnails, the full image):
   *  of the chat whose view is shown, which lags the selection while the next one loads. */
  const shownId = chat.state?.view.id ?? "";
  const loadImage = useCallback((name: string) => api.attachmentImage(shownId, name), [shownId]);
  const phaseNow = chat.state?.view.state.phase ?? "idle";
  // After an install or removal: the catalog again, and the chat watched anew (an install of
  // the model the engine runs on re-opens the engine, which ends the old watch).
  const installs = useModelInstalls(async () => {
    setInfo(await api.appInfo());
    setGeneration((n) => n + 1);
  });


  // A dialog belongs to the chat it was opened in.
  useEffect(() => setDialog(null), [selected]);

  /** The first page of chats again, joined to the pages loaded after it; `select` opens one. */
  const loadChats = useCallback(async (select?: string) => {
    const page = await api.listChats();
    setLoaded((current) => withFirstPage(current, page));
    if (select) setOpenAt(null);
    setSelected((current) => select ?? current ?? page.data[0]?.id ?? null);
  }, []);
  const loadingMore = useRef(false);
  const loadMoreChats = async () => {
    if (loaded.next === null || loadingMore.current) return;
    loadingMore.current = true;
    try {
      const page = await api.listChats(loaded.next);
      setLoaded((current) => (current.next === loaded.next ? withNextPage(current, page) : current));
    } finally {
      loadingMore.current = false;
    }
  };
  const select = (chatId: string | null, at: string | null = null) => {
    folds.close();
    setBanner(null);
    setEditing(null);
    setOpenAt(at);
    setSelected(chatId);
  };

  // Ctrl+N: a new chat; Esc with the focus in the chat: stop the running turn.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "k" && (event.ctrlKey || event.metaKey) && !event.altKey) {
        event.preventDefault();
        setSearching(true);
      } else if (event.key === "n" && (event.ctrlKey || event.metaKey) && !event.altKey) {
        event.preventDefault();
        void api.createChat({}).then((created) => loadChats(created.id));
      } else if (event.key === "Escape" && selected && (phaseNow === "planning" || phaseNow === "executing")) {
        const target = event.target instanceof Element ? event.target : null;
        if (target?.closest("main.chat") && !target.closest('[data-testid="edit-box"]')) {
          event.preventDefault();
          void chat.act(() => api.stopTurn(selected));
        }
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [selected, phaseNow, loadChats, chat]);

  // Desktop notifications: their settings and words told to the shell in the window's language;
  // a click on one opens its chat (the list read again, so a chat made since is in it).
  useEffect(() => void tellShell(), [language]);
  useOpenChat((chatId) => {
    setScreen((current) => (current.kind === "settings" && (current.firstRun || current.problem) ? current : { kind: "chats" }));
    select(chatId);
    void loadChats(chatId);
  });

  useEffect(() => {
    (async () => {
      const info = await api.appInfo();
      setInfo(info);
      try {
        const current = await api.getSettings();
        setSettings(current);
        if (!current.configured || info.startup_error) {
          setScreen({ kind: "settings", firstRun: !current.configured, problem: info.startup_error });
        } else {
          await loadChats();
          setScreen({ kind: "chats" });
        }
      } catch (error) {
        setScreen({ kind: "settings", firstRun: false, problem: describeError(asApiError(error)) });
      }
      markReady();
    })();
  }, [loadChats]);

  const saveSettings = async (update: SettingsUpdate): Promise<string | null> => {
    try {
      setSettings(await api.saveSettings(update));
      setInfo(await api.appInfo());
      await loadChats();
      setGeneration((n) => n + 1);
      setScreen({ kind: "chats" });
      return null;
    } catch (error) {
      return describeError(asApiError(error));
    }
  };

  if (screen.kind === "loading") return <main class="loading">{t("app.starting")}</main>;
  if (screen.kind === "settings" && settings) {
    const close = screen.firstRun || screen.problem ? null : () => setScreen({ kind: "chats" });
    return (
      <Settings
        settings={settings}
        models={info?.models ?? []}
        installs={installs}
        mcp={MCP}
        providers={PROVIDERS}
        skills={skillsOf(selected, settings.config_path)}
        onProvidersChanged={() => {
          // The engine opened again on the new list: the chat is watched anew.
          setGeneration((n) => n + 1);
        }}
        modelsDir={info?.models_dir ?? ""}
        firstRun={screen.firstRun}
        problem={screen.problem}
        at={screen.at}
        onSave={saveSettings}
        onCheck={api.checkProvider}
        onClose={close}
      />
    );
  }

  const state = chat.state;
  // A failure the chat's own notice card says (with its actions) is not said a second time.
  const shownError = state?.error && !saidByNotice(state.view.messages, state.error.code) ? state.error : null;
  // A chat opened from a search may be in no page loaded yet: its view says what it is.
  const current: Chat | null = chats.find((c) => c.id === selected) ?? (state && state.view.id === selected ? state.view : null);
  const phase = state?.view.state.phase ?? "idle";
  const locked = phase === "questions";
  const run = async (action: () => Promise<unknown>, after?: () => void) => {
    const error = await chat.act(action);
    setBanner(error ? (error.code === "ERR_PLAN_PENDING" ? lockedNotice() : describeError(error)) : null);
    after?.();
    return error === null;
  };
  const id = selected ?? "";
  const refreshChats = () => void loadChats();
  /** Opens a fork once made (DESIGN §15); the refusal to show, or null. */
  const openFork = async (forked: Promise<Forked>) => {
    const done = await forked;
    if (done.kind !== "forked") return done.kind === "refused" ? done.text : null;
    setDialog(null);
    select(done.view.id);
    await loadChats(done.view.id);
    return null;
  };
  const openSettings = () => {
    folds.close(false);
    setScreen({ kind: "settings", firstRun: false, problem: null });
  };
  const openMcpSettings = () => setScreen({ kind: "settings", firstRun: false, problem: null, at: "mcp" });
  const openProviderSettings = () => {
    folds.close(false);
    setScreen({ kind: "settings", firstRun: false, problem: null, at: "providers" });
  };
  const busy = phase === "planning" || phase === "executing";
  const describeOrNull = (error: unknown) => (error === null ? null : describeError(asApiError(error)));
  /** Run the checks again / Accept as is: refused, the verdict may have changed meanwhile (a
   *  re-run that came back, another window's choice), so the chat is read again. */
  const verdictAction = async (action: () => Promise<unknown>) => {
    const error = await chat.act(action);
    if (error !== null) chat.refresh();
    return describeOrNull(error);
  };
  const notice = settings?.provider === "embedded" && (
    <ModelNotice model={settings.model} models={info?.models ?? []} installs={installs} onSettings={openSettings} />
  );
  const counts = taskCounts(state?.tasks ?? []);
  const tasksDetail = counts.total > 0 ? t("tasks.count", { done: counts.done, total: counts.total }) : undefined;

  return (
    <div class="app">
      {searching && (
        <SearchChats
          search={api.searchChats}
          onClose={() => setSearching(false)}
          onOpen={(chatId, messageId) => {
            setSearching(false);
            select(chatId, messageId);
          }}
        />
      )}
      <FoldPanel name="chats" folds={folds}>
        <Sidebar
          chats={chats}
          running={running}
          selectedId={selected}
          onSelect={(chatId) => select(chatId)}
          onMore={loaded.next === null ? undefined : () => void loadMoreChats()}
          onNew={async () => {
            folds.close();
            const created = await api.createChat({});
            await loadChats(created.id);
          }}
          onRename={async (chatId, title) => {
            await run(() => api.renameChat(chatId, title), refreshChats);
          }}
          onDelete={async (chatId) => {
            await run(() => api.deleteChat(chatId));
            setLoaded((current) => withoutChat(current, chatId));
            if (chatId === selected) select(null);
            await loadChats();
          }}
          onSettings={openSettings}
          onImport={async () => {
            const imported = await importChatFrom(api);
            if (imported.kind === "imported") {
              select(imported.view.id);
              await loadChats(imported.view.id);
            }
            return imported.kind === "refused" ? imported.text : null;
          }}
        />
      </FoldPanel>
      {current && state ? (
        <main class="chat" data-testid="chat" data-phase={phase}>
          {notice}
          <header class="chat-head">
            <div class="chat-title-row">
              <FoldToggle name="chats" folds={folds} />
              <h2 class="chat-heading">{current.title}</h2>
              <ChatMenu key={id} onExport={(format) => exportChatTo(api, id, format)} />
              <FoldToggle name="tasks" folds={folds} detail={tasksDetail} />
            </div>
            <div class="chat-model-row">
              <ModelPicker
                choice={state.view.id === id ? state.view.model : current.model}
                defaultModel={settings?.model ?? ""}
                models={models}
                busy={busy}
                onChoose={async (model) => {
                  const error = await chat.act(() => api.updateChat(id, { model }));
                  refreshChats();
                  return describeOrNull(error);
                }}
                onOpenSettings={openSettings}
                openRequest={pickerRequest}
              />
              <UsageLine usage={state.view.usage} onOpenSettings={openProviderSettings} />
            </div>
            {current.worktree ? (
              <WorktreeSection chat={{ ...current, worktree: current.worktree }} busy={busy} refreshKey={`${phase}:${state.view.messages.length}`} run={run} onChanged={refreshChats} api={api} />
            ) : (
              <WorkspaceBar
                chat={current}
                onSet={(path) => void run(() => api.setChatWorkspace(id, path), refreshChats)}
                onChoose={() => void run(() => api.chooseWorkspace(id), refreshChats)}
                loadSandbox={() => api.sandboxInfo(id)}
                adoptVenv={() => api.adoptVenv(id)}
              />
            )}
            <ChatOptions chat={current} models={models} busy={busy} started={state.view.messages.length > 0} onChange={(patch) => void run(() => api.updateChat(id, patch), refreshChats)} />
            <ScopeBar
              chat={current}
              onSet={(scope) => void run(() => api.updateChat(id, { scope }), refreshChats)}
              onChoose={() => void run(() => api.chooseScope(id), refreshChats)}
            />
          </header>
          {current.workspace && (
            <SandboxNotice chatKey={`${id}:${current.workspace}`} executing={phase === "executing"} load={() => api.sandboxInfo(id)} adopt={() => api.adoptVenv(id)} />
          )}
          <ImageSource.Provider value={loadImage}>
            <Messages
              state={state}
              paging={{ onNearTop: chat.loadOlder, target: openAt }}
              edits={{
                editing,
                onEditStart: setEditing,
                onEditCancel: () => setEditing(null),
                onEditSend: (messageId, text) => {
                  setEditing(null);
                  void run(() => api.editMessage(id, messageId, text), refreshChats);
                },
                onShowTasks: () => {
                  folds.show("tasks");
                  setTimeout(() => document.querySelector<HTMLElement>('[data-testid="task-panel"]')?.focus());
                },
              }}
              actions={{
                onAnswer: (questionId, answer) => void run(() => api.answerQuestion(id, questionId, answer)),
                onAnswerChange: (changeId, approve) => void run(() => api.answerPlanChange(id, changeId, approve)),
                onApprove: (unconfined) => void run(() => api.approvePlan(id, unconfined)),
                onRevise: (feedback, comments) => void run(() => api.rejectPlan(id, feedback, comments)),
                onCancel: () => void run(() => api.cancelPlan(id)),
                onEdit: async (edit) => {
                  await run(() => api.editPlan(id, edit));
                },
                loadRevisions: () => api.planRevisions(id),
                onAnswerElicitation: async (elicitationId, answer) => {
                  const error = await chat.act(() => api.answerElicitation(id, elicitationId, answer));
                  // Closed meanwhile (its call ended): the list tells which are still open.
                  if (error?.code === "ERR_NOT_FOUND") chat.reload();
                  return describeOrNull(error);
                },
                onOpenElicitationUrl: (elicitationId) =>
                  api.openElicitationUrl(id, elicitationId).then(
                    () => null,
                    (error: unknown) => describeOrNull(error),
                  ),
                onContinue: async () => {
                  const error = await chat.act(() => api.continueWork(id));
                  // Nothing left, or already going on: the engine's view says what is true now.
                  if (error?.code === "ERR_NOTHING_LEFT" || error?.code === "ERR_TURN_ACTIVE") chat.refresh();
                  return describeOrNull(error);
                },
                onResend: async (messageId, content) => describeOrNull(await chat.act(() => api.editMessage(id, messageId, content))),
                onOpenSettings: openSettings,
                onVerifyPlan: () => verdictAction(() => api.verifyPlan(id)),
                onAcceptPlan: () => verdictAction(() => api.acceptPlan(id)),
                onFork: (messageId) => void openFork(forkChat(api, id, { message_id: messageId })).then((refused) => refused && setBanner(refused)),
                onOpenPlanFolder: () => void run(() => api.openPlanFolder(id)),
                onPlanDiff: planDiff(checkpoints.list) ? () => setDialog(planDiff(checkpoints.list)) : undefined,
              }}
            />
          </ImageSource.Provider>
          {statusText(phase) !== "" && (
            <p class="status-line" data-testid="status-line" aria-live="polite">
              {(phase === "planning" || phase === "executing") && <span class="spinner" aria-hidden="true" />} {statusText(phase)}
              {phase === "planning" && state.drafted && (
                <span class="muted" data-testid="drafted" aria-hidden="true">
                  {" "}
                  {draftedText(state.drafted)}
                </span>
              )}
            </p>
          )}
          {(banner ?? shownError) && (
            <p class="error" role="alert" data-testid="error-banner">
              {banner ?? (shownError && describeError(shownError))}
              {!banner && state.error?.code === "ERR_MCP_SIGN_IN" && (
                <>
                  {" "}
                  <button type="button" class="secondary small" data-testid="open-mcp-settings" onClick={openMcpSettings}>
                    {t("app.signInMcp")}
                  </button>
                </>
              )}
            </p>
          )}
          <Composer
            key={id}
            locked={locked}
            running={phase === "planning" || phase === "executing"}
            awaitingApproval={activeCard(state.view)?.kind === "plan"}
            onSend={(text, files, images) => run(() => api.sendMessage(id, text, files, images), refreshChats)}
            files={FILES}
            vision={{
              blind: blindModel(models.list, state.view, settings?.model ?? ""),
              onNeedModels: () => models.list === null && models.load(),
              onChooseModel: () => setPickerRequest((n) => n + 1),
            }}
            meter={<ContextMeterView meter={state.view.usage.context} />}
            offers={{ prompts: () => api.chatPrompts(id), resources: () => api.chatResources(id) }}
            onStop={() => void run(() => api.stopTurn(id))}
            onEditLast={() => {
              const last = [...state.view.messages].reverse().find(typedByUser);
              if (last && phase !== "planning" && phase !== "executing") setEditing(last.id);
            }}
          />
        </main>
      ) : (
        <main class="chat empty">
          <div class="fold-bar">
            <FoldToggle name="chats" folds={folds} />
          </div>
          {notice}
          <p class="muted">{chats.length === 0 ? t("app.noChats") : t("app.chooseChat")}</p>
          <button
            type="button"
            class="primary"
            onClick={async () => {
              const created = await api.createChat({});
              await loadChats(created.id);
            }}
          >
            {t("app.newChat")}
          </button>
        </main>
      )}
      <FoldPanel name="tasks" folds={folds}>
        <TaskPanel
          tasks={state?.tasks ?? []}
          finished={state?.tasksFinished ?? false}
          files={chat.files}
          changes={state?.view.state.changes ?? []}
          onOpenFolder={() => void run(() => api.openPlanFolder(id))}
          busy={phase === "planning" || phase === "executing"}
          checkpoints={current && state ? checkpoints.list : null}
          onTaskDiff={(task, span) => setDialog(taskDiff(task, span))}
          onRestoreTask={(task, span) => setDialog(restoreBeforeTask(task, span))}
          onForkTask={(task, span) => setDialog(forkBeforeTask(task, span))}
          onUndoTurn={(checkpoint) => setDialog(undoTurn(checkpoint))}
          stopped={!!state?.view.state.stopped && phase !== "planning" && phase !== "executing"}
          onClear={
            current && state
              ? async () => {
                  const error = await chat.act(() => api.clearTaskList(id));
                  // The list (and the stop card it kept) as the engine has them now.
                  chat.refresh();
                  return describeOrNull(error);
                }
              : undefined
          }
        />
      </FoldPanel>
      {current && state && (
        <CheckpointDialogs
          dialog={dialog}
          checkpoints={checkpoints.list}
          tasks={state.tasks}
          busy={phase === "planning" || phase === "executing"}
          loadDiff={(from, to) => api.checkpointDiff(id, from, to)}
          loadPreview={(checkpoint) => api.restorePreview(id, checkpoint)}
          restore={async (checkpoint, digest, overwrite) => {
            const error = await chat.act(() => api.restoreCheckpoint(id, checkpoint, digest, overwrite));
            // The files, the task list and the entry changed (or a turn started meanwhile).
            checkpoints.reload();
            chat.refresh();
            return describeOrNull(error);
          }}
          workspace={current.workspace}
          fork={(checkpoint, copy) => openFork(copy ? forkIntoFolder(api, id, checkpoint) : forkChat(api, id, { checkpoint_id: checkpoint }))}
          onClose={() => setDialog(null)}
        />
      )}
    </div>
  );
}
