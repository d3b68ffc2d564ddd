import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { TEAMPASS3_ENDPOINT_NAMES, teampass3Endpoints } from './endpoints.ts';

describe('the TeamPass 3 endpoint table', () => {
  it('sends the eight base fields of item/create even when not given', () => {
    expect(v.parse(teampass3Endpoints.createItem.input, { label: 'a', folder_id: 2, password: 'p' })).toEqual(
      {
        label: 'a',
        folder_id: 2,
        password: 'p',
        login: '',
        email: '',
        url: '',
        tags: '',
        anyone_can_modify: 0,
      },
    );
    expect(
      v.parse(teampass3Endpoints.createItem.input, {
        label: 'a',
        folder_id: 2,
        password: 'p',
        tags: ['db', 'prod'],
        anyone_can_modify: true,
      }),
    ).toMatchObject({ tags: 'db prod', anyone_can_modify: 1 });
  });

  it('escapes a searched label the way TeamPass stores labels, and leaves a description as it is', () => {
    expect(v.parse(teampass3Endpoints.searchItems.input, { label: `Tom & "J" <x> 'y'`, like: true })).toEqual(
      {
        label: 'Tom &amp; &quot;J&quot; &lt;x&gt; &#039;y&#039;',
        like: 1,
      },
    );
    expect(v.parse(teampass3Endpoints.searchItems.input, { description: 'a & b' })).toEqual({
      description: 'a & b',
      like: undefined,
    });
  });

  it('encodes a URL once more for findByUrl, which TeamPass decodes twice', () => {
    expect(v.parse(teampass3Endpoints.findByUrl.input, { url: 'https://x/?a=1+2%20' })).toEqual({
      url: 'https%3A%2F%2Fx%2F%3Fa%3D1%2B2%2520',
    });
  });

  it('joins folder ids and caps pages at 500', () => {
    expect(v.parse(teampass3Endpoints.itemsInFolders.input, { folders: [1, 2], limit: 500 })).toEqual({
      folders: '1,2',
      limit: 500,
    });
    expect(v.safeParse(teampass3Endpoints.itemsInFolders.input, { folders: [1], limit: 501 }).success).toBe(
      false,
    );
    expect(v.safeParse(teampass3Endpoints.itemsInFolders.input, { folders: [] }).success).toBe(false);
    expect(
      v.safeParse(teampass3Endpoints.createFolder.input, { title: 'x', parent_id: 0, complexity: 10 })
        .success,
    ).toBe(false);
  });

  it('marks the answers that carry secrets, and only those', () => {
    const secret = TEAMPASS3_ENDPOINT_NAMES.filter((name) => teampass3Endpoints[name].secret);
    expect(secret).toEqual([
      'authorize',
      'authorizeToken',
      'getItem',
      'searchItems',
      'itemsInFolders',
      'getOtp',
    ]);
  });
});
