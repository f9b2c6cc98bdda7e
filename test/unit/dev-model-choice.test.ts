import { describe, expect, it } from 'vitest';
import { chooseModel, startDevModel } from '../../sandbox/dev-model.ts';
import { UsageError } from '../../sandbox/token-command.ts';

const SCRIPT = 'demo/model-script.ts';

describe('the model switchboard dev gives the agents', () => {
  it('is the scripted model with the script when no key is set', () => {
    expect(chooseModel({ 'model-script': SCRIPT }, {}, 'usage')).toEqual({
      kind: 'scripted',
      script: SCRIPT,
    });
  });

  it('is the real endpoint when only OPENAI_API_KEY chose it: the script given beside it is not used, and the banner says so', async () => {
    const choice = chooseModel({ 'model-script': SCRIPT }, { OPENAI_API_KEY: 'sk-never-printed' }, 'usage');
    expect(choice).toEqual({
      kind: 'endpoint',
      baseURL: 'https://api.openai.com/v1',
      apiKey: 'sk-never-printed',
      scriptNotUsed: SCRIPT,
    });
    const env: NodeJS.ProcessEnv = {};
    const model = await startDevModel(choice, 'usage', env);
    expect(model.line).toBe(
      `https://api.openai.com/v1, with the key in OPENAI_API_KEY (${SCRIPT} is for the scripted model: not used)`,
    );
    expect(env).toEqual({
      SWITCHBOARD_MODEL_BASE_URL: 'https://api.openai.com/v1',
      SWITCHBOARD_MODEL_API_KEY: 'sk-never-printed',
    });
  });

  it('refuses a script beside an endpoint chosen on the command line', () => {
    const env = { OPENAI_API_KEY: 'sk-x' };
    expect(() => chooseModel({ model: 'endpoint', 'model-script': SCRIPT }, env, 'usage')).toThrow(
      UsageError,
    );
    expect(() =>
      chooseModel({ 'model-base-url': 'http://127.0.0.1:11434/v1', 'model-script': SCRIPT }, env, 'usage'),
    ).toThrow('--model-script is for the scripted model');
  });
});
