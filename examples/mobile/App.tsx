import * as Notifications from 'expo-notifications';
import { StatusBar } from 'expo-status-bar';
import { useEffect, useState } from 'react';
import {
  AppState,
  FlatList,
  KeyboardAvoidingView,
  Platform,
  Pressable,
  StyleSheet,
  Text,
  TextInput,
  View,
} from 'react-native';
import { createClient } from 'switchboard/client';
import { type ChatMessage, type ChatPart, type PendingRequest, useSwitchboardChat } from 'switchboard/react';
import { tokenProvider } from './auth';
import { AGENT_ID, API_URL, fetchToken, WS_URL } from './config';
import { sessionToOpen, TAP } from './notifications';

// notifications.ts's TAP is expo-notifications' identifier of a tap on the notification itself.
TAP satisfies typeof Notifications.DEFAULT_ACTION_IDENTIFIER;

// One client for the app: one WebSocket for every conversation, resumed from each one's last seq.
// It asks for a token for each request and connection; tokenProvider hands out the one it holds
// and calls fetchToken (your sign-in: config.ts) again when that one is about to expire.
const client = createClient({ url: API_URL, wsUrl: WS_URL, token: tokenProvider(fetchToken) });

/** The notification tap that launched the app, if one did (none where the module is unavailable). */
function launchingNotification(): Notifications.NotificationResponse | null {
  try {
    return Notifications.getLastNotificationResponse();
  } catch {
    return null;
  }
}

/**
 * The app: one conversation at a time, a new one per launch, or the one a tapped notification names
 * (the push sent when the agent asks: docs/hosts.md, "A push notification when the agent asks").
 */
export function App() {
  // Keep the id (and nothing else: the log has the rest) to go on with a conversation later.
  const [sessionId, setSessionId] = useState(
    () => sessionToOpen(launchingNotification()) ?? `mobile-${Date.now().toString(36)}`,
  );

  // Back from the background: the socket may be gone (the OS closes it) or stale; resume reconnects
  // at once and every session rejoins from its last applied seq, so nothing is lost or repeated.
  useEffect(() => {
    const subscription = AppState.addEventListener('change', (state) => {
      if (state === 'active') client.resume();
    });
    return () => subscription.remove();
  }, []);

  // A tap while the app runs (or from the background) opens the session it names; its log shows
  // the approval or the question waiting there.
  useEffect(() => {
    const subscription = Notifications.addNotificationResponseReceivedListener((response) => {
      const opened = sessionToOpen(response);
      if (opened) setSessionId(opened);
    });
    return () => subscription.remove();
  }, []);

  // Another session is another conversation: a fresh component (and hook) for it.
  return <Conversation key={sessionId} sessionId={sessionId} />;
}

/**
 * One conversation with the agent: its messages as they stream, what it asks (approvals,
 * questions), a composer, and a stop button while it answers.
 */
function Conversation({ sessionId }: { sessionId: string }) {
  const [draft, setDraft] = useState('');
  const { messages, status, connection, error, requests, send, stop, regenerate } = useSwitchboardChat({
    client,
    sessionId,
    agentId: AGENT_ID,
    hostContext: { host: { name: 'Switchboard example', kind: 'mobile' } },
    clientTools: {
      // The demo agent asks the device's clock ("What time is it here?").
      local_time: () => ({
        time: new Date().toLocaleTimeString(),
        zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      }),
    },
  });

  const streaming = status === 'streaming';
  const submit = () => {
    const content = draft.trim();
    if (!content) return;
    setDraft('');
    send(content).catch(() => {});
  };

  return (
    <KeyboardAvoidingView style={styles.screen} behavior={Platform.OS === 'ios' ? 'padding' : undefined}>
      <StatusBar style="auto" />
      <View style={styles.header}>
        <Text style={styles.title}>Switchboard</Text>
        <Text style={styles.muted}>{connection === 'open' ? status : connection}</Text>
      </View>
      <FlatList
        style={styles.list}
        data={messages}
        keyExtractor={(message) => message.id}
        renderItem={({ item }) => <Bubble message={item} />}
      />
      {requests.map((request) => (
        <Request key={request.id} request={request} />
      ))}
      {error && <Text style={styles.error}>{error.message}</Text>}
      <View style={styles.composer}>
        <TextInput
          style={styles.input}
          value={draft}
          onChangeText={setDraft}
          onSubmitEditing={submit}
          placeholder="Ask the agent"
          returnKeyType="send"
        />
        {streaming ? (
          <Button label="Stop" onPress={() => stop().catch(() => {})} />
        ) : (
          <Button label="Send" onPress={submit} />
        )}
      </View>
      {!streaming && messages.length > 0 && (
        <Button label="Try again" onPress={() => regenerate().catch(() => {})} />
      )}
    </KeyboardAvoidingView>
  );
}

/** A message: its text, a line for each tool, host action, request and file in it, and its turn's errors. */
function Bubble({ message }: { message: ChatMessage }) {
  const mine = message.role === 'user';
  return (
    <View style={[styles.bubble, mine ? styles.mine : styles.theirs]}>
      {message.parts.map((part, i) => (
        // Parts have no id of their own and never move: their place is their key.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <Part key={i} part={part} />
      ))}
      {message.errors.map((error, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a turn's errors only grow
        <Text key={`error-${i}`} style={styles.error}>
          {error.message}
        </Text>
      ))}
      {message.state === 'streaming' && <Text style={styles.muted}>…</Text>}
    </View>
  );
}

function Part({ part }: { part: ChatPart }) {
  switch (part.type) {
    case 'text':
      return <Text>{part.text}</Text>;
    case 'tool':
      return <Text style={styles.muted}>{`${part.name}: ${part.state}`}</Text>;
    case 'host_action':
      return <Text style={styles.muted}>{`${part.name} on this device: ${part.state}`}</Text>;
    case 'request':
      return <Text style={styles.muted}>{`${part.request.title ?? part.request.type}: ${part.state}`}</Text>;
    case 'file':
      return <Text style={styles.muted}>{`File: ${part.name}`}</Text>;
  }
}

/** What the turn waits on: an approval's buttons, a question's options. */
function Request({ request }: { request: PendingRequest }) {
  if (request.type === 'tool_approval')
    return (
      <View style={styles.card}>
        <Text>{request.title ?? `Allow ${request.toolName}?`}</Text>
        <View style={styles.row}>
          <Button label="Approve" onPress={() => request.approve().catch(() => {})} />
          <Button label="Deny" onPress={() => request.deny().catch(() => {})} />
        </View>
      </View>
    );
  if (request.type === 'user_question')
    return (
      <View style={styles.card}>
        <Text>{request.questions[0]?.question ?? request.title}</Text>
        <View style={styles.row}>
          {(request.questions[0]?.options ?? []).map((option) => (
            <Button
              key={option.label}
              label={option.label}
              onPress={() => request.answer([option.label]).catch(() => {})}
            />
          ))}
        </View>
      </View>
    );
  return (
    <View style={styles.card}>
      <Text>{`The agent asked for ${request.toolName ?? 'a tool'}, which this app does not have.`}</Text>
      <Button label="Decline" onPress={() => request.fail('not available on this device').catch(() => {})} />
    </View>
  );
}

function Button({ label, onPress }: { label: string; onPress: () => void }) {
  return (
    <Pressable style={styles.button} onPress={onPress} accessibilityRole="button">
      <Text style={styles.buttonText}>{label}</Text>
    </Pressable>
  );
}

const styles = StyleSheet.create({
  screen: { flex: 1, paddingTop: 48, paddingHorizontal: 12, paddingBottom: 24, backgroundColor: '#fafafa' },
  header: { flexDirection: 'row', justifyContent: 'space-between', alignItems: 'baseline' },
  title: { fontSize: 20, fontWeight: '600' },
  muted: { color: '#666', fontSize: 13 },
  list: { flex: 1, marginVertical: 8 },
  bubble: { borderRadius: 12, padding: 10, marginVertical: 4, maxWidth: '85%', gap: 4 },
  mine: { alignSelf: 'flex-end', backgroundColor: '#dbeafe' },
  theirs: { alignSelf: 'flex-start', backgroundColor: '#fff' },
  card: { backgroundColor: '#fff7ed', borderRadius: 12, padding: 10, marginVertical: 4, gap: 8 },
  row: { flexDirection: 'row', flexWrap: 'wrap', gap: 8 },
  error: { color: '#b91c1c', marginVertical: 4 },
  composer: { flexDirection: 'row', gap: 8, alignItems: 'center' },
  input: {
    flex: 1,
    borderWidth: 1,
    borderColor: '#ccc',
    borderRadius: 8,
    padding: 10,
    backgroundColor: '#fff',
  },
  button: { backgroundColor: '#1d4ed8', borderRadius: 8, paddingVertical: 8, paddingHorizontal: 14 },
  buttonText: { color: '#fff', fontWeight: '600' },
});
