// Screenshots and files the owner pastes or drops, turned into the JSON
// attachments the API takes.

/** The largest file the server accepts. */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;

/** Reads a File as {filename, mime, data_base64}. */
export function fileToAttachment(file) {
  return new Promise((resolve, reject) => {
    if (file.size > MAX_FILE_BYTES) {
      reject(new Error(`${file.name || 'the file'} is larger than 50 MB`));
      return;
    }
    const reader = new FileReader();
    reader.onerror = () => reject(reader.error || new Error('could not read the file'));
    reader.onload = () => {
      const url = String(reader.result);
      resolve({ filename: fileName(file), mime: file.type || 'application/octet-stream', data_base64: url.slice(url.indexOf(',') + 1) });
    };
    reader.readAsDataURL(file);
  });
}

// Pasted screenshots arrive as "image.png"; a time makes several tellable apart.
function fileName(file) {
  if (file.name && file.name !== 'image.png') return file.name;
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '-');
  const ext = (file.type.split('/')[1] || 'png').replace('jpeg', 'jpg');
  return `screenshot-${stamp}.${ext}`;
}

/** The files of a paste or drop event (images and anything else). */
export function filesOf(dataTransfer) {
  if (!dataTransfer) return [];
  const files = [];
  if (dataTransfer.items) {
    for (const item of dataTransfer.items) {
      if (item.kind === 'file') {
        const f = item.getAsFile();
        if (f) files.push(f);
      }
    }
  } else if (dataTransfer.files) {
    files.push(...dataTransfer.files);
  }
  return files;
}
