// Which package provides a program, a Python module or a Node package, so a message can say what to install.
// Import names often differ from package names (PIL is Pillow, Debian's python3-pil); unknown names get a guess
// that says it is one. Debian names are those of Debian 12 (bookworm); "no Debian package" means none there.
import type { DependencyKind, InstallAdvice } from './types.ts';

const OFFICE = 'libreoffice-core (with libreoffice-writer, -calc or -impress for the formats you convert)';
const POPPLER = 'poppler-utils';
const IMAGEMAGICK = 'imagemagick';
/** Playwright's browsers, where the sandbox sees them (a run's HOME is its own, so browsers in a home folder are not). */
const PLAYWRIGHT_BROWSERS =
  "as root, `PLAYWRIGHT_BROWSERS_PATH=/usr/local/share/ms-playwright python3 -m playwright install --with-deps chromium`, then give the skill `PLAYWRIGHT_BROWSERS_PATH: /usr/local/share/ms-playwright` in the world's `env`";

/** Programs the scan looks for in shell code and in strings a script hands to subprocess/child_process. */
export const KNOWN_PROGRAMS: Readonly<Record<string, InstallAdvice>> = {
  soffice: { debian: OFFICE },
  libreoffice: { debian: OFFICE },
  pdftoppm: { debian: POPPLER },
  pdftotext: { debian: POPPLER },
  pdfinfo: { debian: POPPLER },
  pdfimages: { debian: POPPLER },
  pdftocairo: { debian: POPPLER },
  pdfseparate: { debian: POPPLER },
  pdfunite: { debian: POPPLER },
  pdffonts: { debian: POPPLER },
  qpdf: { debian: 'qpdf' },
  pdftk: { debian: 'pdftk-java' },
  gs: { debian: 'ghostscript' },
  pandoc: { debian: 'pandoc' },
  convert: { debian: IMAGEMAGICK },
  identify: { debian: IMAGEMAGICK },
  mogrify: { debian: IMAGEMAGICK },
  montage: { debian: IMAGEMAGICK },
  magick: { debian: IMAGEMAGICK, note: '`magick` is ImageMagick 7; Debian 12 ships ImageMagick 6, whose command is `convert`' },
  ffmpeg: { debian: 'ffmpeg' },
  ffprobe: { debian: 'ffmpeg' },
  tesseract: { debian: 'tesseract-ocr' },
  'rsvg-convert': { debian: 'librsvg2-bin' },
  inkscape: { debian: 'inkscape' },
  dot: { debian: 'graphviz' },
  pdflatex: { debian: 'texlive-latex-base' },
  xelatex: { debian: 'texlive-xetex' },
  latexmk: { debian: 'latexmk' },
  exiftool: { debian: 'libimage-exiftool-perl' },
  xmllint: { debian: 'libxml2-utils' },
  git: { debian: 'git' },
  curl: { debian: 'curl' },
  wget: { debian: 'wget' },
  jq: { debian: 'jq' },
  yq: { debian: 'yq' },
  zip: { debian: 'zip' },
  unzip: { debian: 'unzip' },
  sqlite3: { debian: 'sqlite3' },
  node: { debian: 'nodejs' },
  nodejs: { debian: 'nodejs' },
  npx: { debian: 'npm' },
  java: { debian: 'default-jre-headless' },
  gcc: { debian: 'gcc' },
  cc: { debian: 'gcc' },
  make: { debian: 'make' },
  python: { debian: 'python-is-python3', note: 'Debian has no `python` command unless python-is-python3 is installed' },
  python3: { debian: 'python3' },
  perl: { debian: 'perl' },
  ruby: { debian: 'ruby' },
  bash: { debian: 'bash' },
  zsh: { debian: 'zsh' },
  markitdown: { pip: 'markitdown[all]' },
  mmdc: { npm: '@mermaid-js/mermaid-cli' },
  gh: { debian: 'gh' },
  npm: { debian: 'npm' },
  pnpm: { npm: 'pnpm', note: 'or `corepack enable pnpm` as root, which links it into the node folder the sandbox sees' },
  yarn: { npm: 'yarn' },
  tsc: { npm: 'typescript' },
  claude: { npm: '@anthropic-ai/claude-code', note: 'a skill that runs `claude` needs it signed in, which a sandboxed run is not' },
  uv: { pip: 'uv' },
  playwright: { pip: 'playwright', note: `then its browsers: ${PLAYWRIGHT_BROWSERS}` },
  'playwright-browsers': { note: PLAYWRIGHT_BROWSERS },
  chromium: { debian: 'chromium' },
};

/** Import name → package, where the two differ or the Debian name is worth stating. */
const PYTHON_MODULES: Readonly<Record<string, InstallAdvice>> = {
  pypdf: {
    debian: 'python3-pypdf',
    pip: 'pypdf',
    note: "Debian 12's python3-pypdf (3.4.1) is older than some skills need; a current pypdf is pure Python (pip install pypdf)",
  },
  PyPDF2: { debian: 'python3-pypdf2', pip: 'PyPDF2' },
  pdfplumber: { pip: 'pdfplumber', note: 'not packaged in Debian 12' },
  pdfminer: { debian: 'python3-pdfminer', pip: 'pdfminer.six' },
  pypdfium2: { pip: 'pypdfium2', note: 'not packaged in Debian 12' },
  pdf2image: { pip: 'pdf2image', note: 'not packaged in Debian 12' },
  pikepdf: { debian: 'python3-pikepdf', pip: 'pikepdf' },
  fitz: { debian: 'python3-fitz', pip: 'PyMuPDF' },
  pymupdf: { pip: 'PyMuPDF', note: 'not packaged in Debian 12' },
  reportlab: { debian: 'python3-reportlab', pip: 'reportlab' },
  docx: { debian: 'python3-docx', pip: 'python-docx' },
  pptx: { pip: 'python-pptx', note: 'not packaged in Debian 12' },
  openpyxl: { debian: 'python3-openpyxl', pip: 'openpyxl' },
  xlrd: { debian: 'python3-xlrd', pip: 'xlrd' },
  xlsxwriter: { debian: 'python3-xlsxwriter', pip: 'XlsxWriter' },
  PIL: { debian: 'python3-pil', pip: 'Pillow' },
  lxml: { debian: 'python3-lxml', pip: 'lxml' },
  defusedxml: { debian: 'python3-defusedxml', pip: 'defusedxml' },
  yaml: { debian: 'python3-yaml', pip: 'PyYAML' },
  markitdown: { pip: 'markitdown[all]', note: 'not packaged in Debian 12' },
  markdown: { debian: 'python3-markdown', pip: 'Markdown' },
  bs4: { debian: 'python3-bs4', pip: 'beautifulsoup4' },
  cv2: { debian: 'python3-opencv', pip: 'opencv-python' },
  sklearn: { debian: 'python3-sklearn', pip: 'scikit-learn' },
  skimage: { debian: 'python3-skimage', pip: 'scikit-image' },
  numpy: { debian: 'python3-numpy', pip: 'numpy' },
  pandas: { debian: 'python3-pandas', pip: 'pandas' },
  scipy: { debian: 'python3-scipy', pip: 'scipy' },
  matplotlib: { debian: 'python3-matplotlib', pip: 'matplotlib' },
  requests: { debian: 'python3-requests', pip: 'requests' },
  jinja2: { debian: 'python3-jinja2', pip: 'Jinja2' },
  dateutil: { debian: 'python3-dateutil', pip: 'python-dateutil' },
  magic: { debian: 'python3-magic', pip: 'python-magic' },
  pytesseract: { debian: 'python3-pytesseract', pip: 'pytesseract' },
  Crypto: { debian: 'python3-pycryptodome', pip: 'pycryptodome' },
  cryptography: { debian: 'python3-cryptography', pip: 'cryptography' },
  pkg_resources: { debian: 'python3-pkg-resources', pip: 'setuptools' },
  setuptools: { debian: 'python3-setuptools', pip: 'setuptools' },
  anthropic: { pip: 'anthropic', note: 'not packaged in Debian 12' },
  playwright: { pip: 'playwright', note: `not packaged in Debian 12; then its browsers: ${PLAYWRIGHT_BROWSERS}` },
  imageio: { debian: 'python3-imageio', pip: 'imageio', newer: { note: "Debian 12's python3-imageio is 2.4.1, which has no imageio.v3 (it came with imageio 2.16); pip's current imageio has it", pip: "'imageio>=2.16'", submodules: ['v3'] } },
  mcp: { pip: 'mcp', note: 'not packaged in Debian 12' },
};

/** Node package → where to get it (Debian packages few of the ones skills use). */
const NODE_PACKAGES: Readonly<Record<string, InstallAdvice>> = {
  docx: { npm: 'docx' },
  pptxgenjs: { npm: 'pptxgenjs' },
  'pdf-lib': { npm: 'pdf-lib' },
  sharp: { npm: 'sharp' },
  react: { debian: 'node-react', npm: 'react' },
  'react-dom': { npm: 'react-dom' },
};

/** What to install for `name`: the known package, else a guess marked as one. */
export function adviceFor(kind: DependencyKind, name: string): InstallAdvice {
  if (kind === 'program') {
    const known = KNOWN_PROGRAMS[baseName(name)];
    return known ?? { debian: baseName(name), guessed: true };
  }
  if (kind === 'python') {
    return PYTHON_MODULES[name] ?? { debian: `python3-${name.toLowerCase().replace(/_/g, '-')}`, pip: name, guessed: true };
  }
  return NODE_PACKAGES[name] ?? { npm: name };
}

/** pip as root with the python3 the sandbox runs; `upgrade` when an older one is there (else pip keeps it). */
export function pipInstall(requirement: string, upgrade = false): string {
  return `sudo /usr/bin/python3 -m pip install --break-system-packages ${upgrade ? '--upgrade ' : ''}${requirement}`;
}

/** "Debian's python3-yaml (or: pip install PyYAML)" and the like: what a person types, not prose about it. */
export function describeAdvice(advice: InstallAdvice): string {
  const ways: string[] = [];
  if (advice.debian !== undefined) ways.push(`Debian's ${advice.debian}${advice.guessed === true ? ' if there is such a package' : ''}`);
  // As root, with the python3 the sandbox runs (/usr/bin comes first on its PATH): pip then writes to
  // /usr/local/lib/python3.X/dist-packages, which the sandbox shows. Debian 12 asks for the flag to allow it.
  if (advice.pip !== undefined) ways.push(pipInstall(advice.pip));
  if (advice.npm !== undefined) ways.push(`npm install -g ${advice.npm}`);
  const text = ways.length > 1 ? `${ways[0]} (or: ${ways.slice(1).join(', or: ')})` : (ways[0] ?? '');
  if (advice.note === undefined) return text;
  return text === '' ? advice.note : `${text}; ${advice.note}`;
}

function baseName(program: string): string {
  return program.slice(program.lastIndexOf('/') + 1);
}
