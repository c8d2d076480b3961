/** What a terminal shows after `text`: enough of one (\r, \n, cursor up, erase down) for the block's moves. */
export function screen(text: string): string[] {
  const rows: string[] = [''];
  let y = 0;
  let x = 0;
  for (let i = 0; i < text.length; i++) {
    const rest = text.slice(i);
    // eslint-disable-next-line no-control-regex -- a terminal's escape sequences
    const csi = /^\u001b\[(\??)(\d*)([A-Za-z])/.exec(rest);
    if (csi) {
      i += csi[0].length - 1;
      if (csi[3] === 'A') y = Math.max(0, y - Number(csi[2] || 1));
      if (csi[3] === 'J') {
        rows.splice(y + 1);
        rows[y] = rows[y]!.slice(0, x);
      }
      continue;
    }
    const ch = text[i]!;
    if (ch === '\r') x = 0;
    else if (ch === '\n') {
      y++;
      x = 0;
      rows[y] ??= '';
    } else {
      rows[y] = rows[y]!.slice(0, x) + ch + rows[y]!.slice(x + 1);
      x++;
    }
  }
  return rows;
}
