import { describe, expect, it } from 'vitest';
import { itemBlocks, resultPage, revealed } from './blocks.ts';
import { MAX_PAGE_SIZE, SLACK_MAX_BLOCKS, SLACK_MAX_SECTION_TEXT } from './constants.ts';
import type { ListedItem } from './search.ts';

const item = (id: number, label = `item-${id}`): ListedItem => ({
  id,
  label,
  login: 'user',
  url: 'https://example.com',
  path: ['Root', 'Team'],
  folderId: 1,
  access: 'read only',
});

describe('resultPage', () => {
  it.each([1, 20, MAX_PAGE_SIZE])(
    'stays within Slack’s 50 blocks at page size %i with a navigation row',
    (size) => {
      const items = Array.from({ length: size * 3 }, (_, i) => item(i + 1));
      const page = resultPage(items, { kind: 'find', q: 'item', p: 1 }, size, false);
      expect(page.blocks?.length).toBeLessThanOrEqual(SLACK_MAX_BLOCKS);
      expect(page.text).toContain('(page 2 of 3)');
    },
  );

  it('says when the vault capped the results and asks to refine the search', () => {
    const page = resultPage([item(1), item(2)], { kind: 'find', q: 'x', p: 0, complete: false }, 20, false);
    expect(page.text).toBe(
      'Items you can read matching “x”: the first 2 (page 1 of 1). More match: refine the search to see them.',
    );
  });

  it('clamps a page number past the end to the last page', () => {
    const page = resultPage([item(1), item(2)], { kind: 'find', q: 'x', p: 99 }, 1, true);
    expect(page.text).toContain('(page 2 of 2)');
    expect(page.replace_original).toBe(true);
  });
});

describe('itemBlocks', () => {
  it('keeps a section under Slack’s text limit even with a huge label and path', () => {
    const huge = {
      ...item(1, 'x'.repeat(10_000)),
      path: Array.from({ length: 20 }, () => 'y'.repeat(500)),
      login: 'z'.repeat(5000),
    };
    const [section] = itemBlocks(huge);
    expect(section?.type === 'section' && section.text ? section.text.text.length : 0).toBeLessThanOrEqual(
      SLACK_MAX_SECTION_TEXT,
    );
  });
});

describe('revealed', () => {
  it('puts the password only in a plain-text block, never in the notification text', () => {
    const message = revealed(item(7), '<!here> s3cr&t', 60);
    expect(message.text).not.toContain('s3cr&t');
    expect(message.blocks).toContainEqual({
      type: 'section',
      text: { type: 'plain_text', text: '<!here> s3cr&t', emoji: false },
    });
  });
});
