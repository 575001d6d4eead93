import type { Bilingual } from '../common/bilingual.js';
import type { CatalogueInput, CategoryInput, ProductInput, VariantInput } from '../storefront/catalogue/catalogue-writer.js';

export interface DemoCatalogue extends CatalogueInput {
  currency: 'SAR';
}

/** mulberry32: fast, 32-bit state, good enough for demo data. Returns floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;
type Gender = 'm' | 'f';

interface Adjective {
  en: string;
  m: string;
  f: string;
}

interface OptionValue {
  code: string;
  label: Bilingual;
  factor: number;
}

interface OptionAxis {
  name: Bilingual;
  values: OptionValue[];
}

interface CategorySpec {
  key: string;
  name: Bilingual;
  description: Bilingual;
  children?: CategorySpec[];
}

interface BrandSpec {
  key: string;
  code: string;
  name: Bilingual;
  description: Bilingual;
  departments: string[];
}

interface ProductType {
  code: string;
  categoryKey: string;
  noun: Bilingual;
  gender: Gender;
  adjectives: Adjective[];
  materials: Bilingual[];
  editions: Bilingual[];
  priceRange: [min: number, max: number];
  axes: OptionAxis[];
  blurb: Bilingual;
}

const DEFAULT_SEED = 42;
const DEFAULT_PRODUCT_COUNT = 240;
const MAX_VARIANTS = 4;
const OUT_OF_STOCK_RATE = 0.08;
const MAX_STOCK = 200;
const ON_SALE_RATE = 0.2;
const MATERIAL_RATE = 0.6;

const b = (en: string, ar: string): Bilingual => ({ en, ar });
const adj = (en: string, m: string, f: string): Adjective => ({ en, m, f });
const opt = (code: string, en: string, ar: string, factor = 1): OptionValue => ({ code, label: b(en, ar), factor });
const axis = (name: Bilingual, values: OptionValue[]): OptionAxis => ({ name, values });

const CATEGORY_TREE: CategorySpec[] = [
  {
    key: 'electronics',
    name: b('Electronics', 'الإلكترونيات'),
    description: b(
      'Phones, laptops, audio and smart gadgets from trusted brands.',
      'هواتف وأجهزة لابتوب وصوتيات وأجهزة ذكية من علامات تجارية موثوقة.',
    ),
    children: [
      {
        key: 'phones',
        name: b('Smartphones', 'الهواتف الذكية'),
        description: b(
          'The latest smartphones with fast delivery across the Kingdom.',
          'أحدث الهواتف الذكية مع توصيل سريع إلى جميع مناطق المملكة.',
        ),
      },
      {
        key: 'laptops',
        name: b('Laptops', 'أجهزة اللابتوب'),
        description: b('Laptops for work, study and creativity.', 'أجهزة لابتوب للعمل والدراسة والإبداع.'),
      },
      {
        key: 'audio',
        name: b('Audio', 'الصوتيات'),
        description: b('Headphones, earbuds and speakers for every listener.', 'سماعات رأس وسماعات أذن ومكبرات صوت لكل محبي الاستماع.'),
        children: [
          {
            key: 'headphones',
            name: b('Headphones & Earbuds', 'سماعات الرأس والأذن'),
            description: b('Wired and wireless headphones with rich, clear sound.', 'سماعات سلكية ولاسلكية بصوت غني ونقي.'),
          },
          {
            key: 'speakers',
            name: b('Speakers', 'مكبرات الصوت'),
            description: b('Portable and smart speakers for home and travel.', 'مكبرات صوت محمولة وذكية للمنزل والسفر.'),
          },
        ],
      },
      {
        key: 'wearables',
        name: b('Wearables', 'الأجهزة القابلة للارتداء'),
        description: b('Smartwatches and fitness bands to track every step.', 'ساعات ذكية وأساور لياقة لمتابعة كل خطوة.'),
      },
      {
        key: 'electronics-accessories',
        name: b('Accessories', 'الإكسسوارات'),
        description: b('Chargers, power banks and cases to keep you connected.', 'شواحن وبطاريات متنقلة وأغطية تبقيك متصلاً دائماً.'),
      },
    ],
  },
  {
    key: 'fashion',
    name: b('Fashion', 'الأزياء'),
    description: b('Clothing, footwear and bags for men and women.', 'ملابس وأحذية وحقائب للرجال والنساء.'),
    children: [
      {
        key: 'men',
        name: b('Men', 'الرجال'),
        description: b('Everyday and occasion wear for men.', 'ملابس رجالية للاستخدام اليومي والمناسبات.'),
        children: [
          {
            key: 'mens-tops',
            name: b('Tops & T-Shirts', 'القمصان والتيشيرتات'),
            description: b('T-shirts and polos in breathable fabrics.', 'تيشيرتات وقمصان بولو بأقمشة جيدة التهوية.'),
          },
          {
            key: 'thobes',
            name: b('Thobes & Shemaghs', 'الثياب والأشمغة'),
            description: b('Tailored thobes and classic shemaghs.', 'ثياب بتفصيل متقن وأشمغة كلاسيكية.'),
          },
        ],
      },
      {
        key: 'women',
        name: b('Women', 'النساء'),
        description: b('Abayas, dresses and modern womenswear.', 'عبايات وفساتين وأزياء نسائية عصرية.'),
        children: [
          {
            key: 'dresses',
            name: b('Dresses', 'الفساتين'),
            description: b('Dresses for gatherings, Eid and every day.', 'فساتين للعزائم والعيد وكل يوم.'),
          },
          {
            key: 'abayas',
            name: b('Abayas', 'العبايات'),
            description: b('Elegant abayas in light, flowing fabrics.', 'عبايات أنيقة بأقمشة خفيفة وانسيابية.'),
          },
        ],
      },
      {
        key: 'shoes',
        name: b('Shoes', 'الأحذية'),
        description: b('Sneakers and sandals built for comfort.', 'أحذية رياضية وصنادل مصممة للراحة.'),
      },
      {
        key: 'bags',
        name: b('Bags', 'الحقائب'),
        description: b('Backpacks and handbags for work and travel.', 'حقائب ظهر وحقائب يد للعمل والسفر.'),
      },
    ],
  },
  {
    key: 'home-kitchen',
    name: b('Home & Kitchen', 'المنزل والمطبخ'),
    description: b('Appliances, cookware and bedding for a comfortable home.', 'أجهزة وأواني طهي ومفروشات لمنزل مريح.'),
    children: [
      {
        key: 'kitchen-appliances',
        name: b('Kitchen Appliances', 'أجهزة المطبخ'),
        description: b('Coffee machines, air fryers and blenders.', 'آلات قهوة وقلايات هوائية وخلاطات.'),
      },
      {
        key: 'cookware',
        name: b('Cookware & Serveware', 'أواني الطهي والضيافة'),
        description: b('Pans, cookware sets and traditional dallahs.', 'مقالٍ وأطقم طهي ودلال تقليدية.'),
      },
      {
        key: 'bedding',
        name: b('Bedding', 'المفروشات'),
        description: b('Sheets and pillows for restful nights.', 'شراشف ووسائد لليالٍ مريحة.'),
      },
      { key: 'lighting', name: b('Lighting', 'الإضاءة'), description: b('Lamps that brighten every corner.', 'مصابيح تضيء كل زاوية.') },
    ],
  },
  {
    key: 'beauty',
    name: b('Beauty & Personal Care', 'الجمال والعناية الشخصية'),
    description: b('Fragrances, skincare and makeup from loved brands.', 'عطور ومنتجات عناية بالبشرة ومكياج من علامات محبوبة.'),
    children: [
      {
        key: 'fragrances',
        name: b('Fragrances & Incense', 'العطور والبخور'),
        description: b('Perfumes, oud oils and bakhoor.', 'عطور ودهن عود وبخور.'),
      },
      {
        key: 'skincare',
        name: b('Skincare', 'العناية بالبشرة'),
        description: b('Moisturisers, serums and sun protection.', 'كريمات مرطبة وسيروم وواقيات شمس.'),
      },
      {
        key: 'makeup',
        name: b('Makeup', 'المكياج'),
        description: b('Lipsticks, mascaras and everyday colour.', 'أحمر شفاه وماسكارا وألوان لإطلالة يومية.'),
      },
    ],
  },
  {
    key: 'sports',
    name: b('Sports & Outdoors', 'الرياضة والرحلات'),
    description: b('Fitness, camping and cycling gear.', 'معدات اللياقة والتخييم وركوب الدراجات.'),
    children: [
      {
        key: 'fitness',
        name: b('Fitness Equipment', 'معدات اللياقة البدنية'),
        description: b('Mats and weights for training at home.', 'سجادات وأوزان للتمرين في المنزل.'),
      },
      {
        key: 'outdoor',
        name: b('Camping & Outdoor', 'التخييم والرحلات البرية'),
        description: b('Tents and chairs for desert trips.', 'خيام وكراسٍ لرحلات البر.'),
      },
      {
        key: 'cycling',
        name: b('Cycling', 'الدراجات'),
        description: b('Bicycles and helmets for every rider.', 'دراجات هوائية وخوذ لكل راكب.'),
      },
    ],
  },
  {
    key: 'toys',
    name: b('Toys & Games', 'الألعاب'),
    description: b('Toys and games for curious minds of all ages.', 'ألعاب للعقول الفضولية من جميع الأعمار.'),
    children: [
      {
        key: 'building-sets',
        name: b('Building Sets', 'ألعاب التركيب'),
        description: b('Construction sets that spark creativity.', 'مجموعات تركيب تنمّي الإبداع.'),
      },
      {
        key: 'dolls',
        name: b('Dolls & Soft Toys', 'الدمى والألعاب المحشوة'),
        description: b('Dolls and plush friends to hug.', 'دمى وألعاب محشوة ناعمة.'),
      },
      {
        key: 'board-games',
        name: b('Board Games & Puzzles', 'ألعاب الطاولة والألغاز'),
        description: b('Games and puzzles for family evenings.', 'ألعاب وألغاز لأمسيات العائلة.'),
      },
    ],
  },
];

const BRANDS: BrandSpec[] = [
  {
    key: 'nova',
    code: 'NOV',
    name: b('Nova', 'نوفا'),
    departments: ['electronics', 'home-kitchen'],
    description: b('Smart, dependable electronics designed for everyday life.', 'إلكترونيات ذكية وموثوقة مصممة لحياتك اليومية.'),
  },
  {
    key: 'volta',
    code: 'VOL',
    name: b('Volta', 'فولتا'),
    departments: ['electronics'],
    description: b('Power and charging gear that keeps you connected on the move.', 'ملحقات طاقة وشحن تبقيك متصلاً أينما كنت.'),
  },
  {
    key: 'zenith',
    code: 'ZEN',
    name: b('Zenith', 'زينيث'),
    departments: ['electronics'],
    description: b(
      'High-performance laptops and phones for creators and professionals.',
      'أجهزة لابتوب وهواتف عالية الأداء للمبدعين والمحترفين.',
    ),
  },
  {
    key: 'orbit',
    code: 'ORB',
    name: b('Orbit', 'أوربت'),
    departments: ['electronics'],
    description: b('Immersive audio and wearables with a clean, modern design.', 'أجهزة صوت وأجهزة قابلة للارتداء بتصميم عصري أنيق.'),
  },
  {
    key: 'atlas',
    code: 'ATL',
    name: b('Atlas', 'أطلس'),
    departments: ['fashion'],
    description: b('Timeless essentials tailored for comfort.', 'أساسيات بتصاميم خالدة وتفصيل مريح.'),
  },
  {
    key: 'layal',
    code: 'LAY',
    name: b('Layal', 'ليال'),
    departments: ['fashion', 'beauty'],
    description: b('Elegant abayas, dresses and beauty for every occasion.', 'عبايات وفساتين ومستحضرات تجميل أنيقة لكل مناسبة.'),
  },
  {
    key: 'sahara',
    code: 'SAH',
    name: b('Sahara', 'صحارى'),
    departments: ['fashion', 'sports'],
    description: b('Durable everyday wear and gear inspired by the desert.', 'ملابس ومعدات يومية متينة مستوحاة من الصحراء.'),
  },
  {
    key: 'qamar',
    code: 'QAM',
    name: b('Qamar', 'قمر'),
    departments: ['fashion'],
    description: b('Modern fashion with a soft, graceful touch.', 'أزياء عصرية بلمسة ناعمة وراقية.'),
  },
  {
    key: 'dar',
    code: 'DAR',
    name: b('Dar', 'دار'),
    departments: ['home-kitchen'],
    description: b('Quality cookware and appliances for the Saudi home.', 'أدوات طهي وأجهزة منزلية عالية الجودة للبيت السعودي.'),
  },
  {
    key: 'nakhla',
    code: 'NAK',
    name: b('Nakhla', 'نخلة'),
    departments: ['home-kitchen'],
    description: b('Bedding and home textiles woven for restful nights.', 'مفروشات ومنسوجات منزلية لليالٍ هادئة ومريحة.'),
  },
  {
    key: 'waha',
    code: 'WAH',
    name: b('Waha', 'واحة'),
    departments: ['home-kitchen'],
    description: b('Kitchen and hospitality essentials for generous hosts.', 'مستلزمات المطبخ والضيافة لأهل الكرم.'),
  },
  {
    key: 'noor',
    code: 'NOO',
    name: b('Noor', 'نور'),
    departments: ['home-kitchen'],
    description: b('Lighting and décor that brightens every corner.', 'إضاءة وديكور يضيئان كل زاوية في منزلك.'),
  },
  {
    key: 'ward',
    code: 'WAR',
    name: b('Ward', 'ورد'),
    departments: ['beauty'],
    description: b('Fragrances and skincare inspired by the roses of Taif.', 'عطور ومنتجات عناية مستوحاة من ورد الطائف.'),
  },
  {
    key: 'anbar',
    code: 'ANB',
    name: b('Anbar', 'عنبر'),
    departments: ['beauty'],
    description: b('Oud, bakhoor and oriental perfumes crafted the traditional way.', 'عود وبخور وعطور شرقية مصنوعة بالطريقة التقليدية.'),
  },
  {
    key: 'lamsa',
    code: 'LAM',
    name: b('Lamsa', 'لمسة'),
    departments: ['beauty'],
    description: b('Clean skincare and colour cosmetics for everyday beauty.', 'منتجات عناية بالبشرة ومستحضرات تجميل لجمال يومي.'),
  },
  {
    key: 'saqr',
    code: 'SAQ',
    name: b('Saqr', 'صقر'),
    departments: ['sports'],
    description: b('Performance fitness equipment for home and gym.', 'معدات لياقة عالية الأداء للمنزل والنادي.'),
  },
  {
    key: 'najd',
    code: 'NAJ',
    name: b('Najd', 'نجد'),
    departments: ['sports'],
    description: b('Camping and outdoor gear built for the Arabian desert.', 'معدات تخييم ورحلات مصممة لصحراء الجزيرة العربية.'),
  },
  {
    key: 'qimma',
    code: 'QIM',
    name: b('Qimma', 'قمة'),
    departments: ['sports'],
    description: b('Bikes and sports gear for riders who aim higher.', 'دراجات ومعدات رياضية لمن يطمح إلى القمة.'),
  },
  {
    key: 'farah',
    code: 'FAR',
    name: b('Farah', 'فرح'),
    departments: ['toys'],
    description: b('Joyful toys that help children learn through play.', 'ألعاب مبهجة تساعد الأطفال على التعلم من خلال اللعب.'),
  },
  {
    key: 'kanz',
    code: 'KAN',
    name: b('Kanz', 'كنز'),
    departments: ['toys'],
    description: b('Games and puzzles that bring the whole family together.', 'ألعاب وألغاز تجمع العائلة كلها.'),
  },
];

const A = {
  wireless: adj('Wireless', 'لاسلكي', 'لاسلكية'),
  noiseCancelling: adj('Noise-Cancelling', 'عازل للضوضاء', 'عازلة للضوضاء'),
  portable: adj('Portable', 'محمول', 'محمولة'),
  smart: adj('Smart', 'ذكي', 'ذكية'),
  slim: adj('Slim', 'رفيع', 'رفيعة'),
  lightweight: adj('Lightweight', 'خفيف', 'خفيفة'),
  compact: adj('Compact', 'صغير الحجم', 'صغيرة الحجم'),
  fast: adj('Fast', 'سريع', 'سريعة'),
  waterproof: adj('Waterproof', 'مقاوم للماء', 'مقاومة للماء'),
  powerful: adj('Powerful', 'قوي', 'قوية'),
  classic: adj('Classic', 'كلاسيكي', 'كلاسيكية'),
  modern: adj('Modern', 'عصري', 'عصرية'),
  elegant: adj('Elegant', 'أنيق', 'أنيقة'),
  comfortable: adj('Comfortable', 'مريح', 'مريحة'),
  premium: adj('Premium', 'فاخر', 'فاخرة'),
  everyday: adj('Everyday', 'يومي', 'يومية'),
  soft: adj('Soft', 'ناعم', 'ناعمة'),
  natural: adj('Natural', 'طبيعي', 'طبيعية'),
  durable: adj('Durable', 'متين', 'متينة'),
  foldable: adj('Foldable', 'قابل للطي', 'قابلة للطي'),
  oriental: adj('Oriental', 'شرقي', 'شرقية'),
  embroidered: adj('Embroidered', 'مطرز', 'مطرزة'),
  casual: adj('Casual', 'كاجوال', 'كاجوال'),
  professional: adj('Professional', 'احترافي', 'احترافية'),
  rechargeable: adj('Rechargeable', 'قابل لإعادة الشحن', 'قابلة لإعادة الشحن'),
  automatic: adj('Automatic', 'أوتوماتيكي', 'أوتوماتيكية'),
  nonStick: adj('Non-Stick', 'مانع للالتصاق', 'مانعة للالتصاق'),
  nonSlip: adj('Non-Slip', 'مانع للانزلاق', 'مانعة للانزلاق'),
  hydrating: adj('Hydrating', 'مرطب', 'مرطبة'),
  longLasting: adj('Long-Lasting', 'طويل الثبات', 'طويلة الثبات'),
  matte: adj('Matte', 'مطفي', 'مطفية'),
  creamy: adj('Creamy', 'كريمي', 'كريمية'),
  adjustable: adj('Adjustable', 'قابل للتعديل', 'قابلة للتعديل'),
  educational: adj('Educational', 'تعليمي', 'تعليمية'),
  creative: adj('Creative', 'إبداعي', 'إبداعية'),
  kidSafe: adj('Kid-Safe', 'آمن للأطفال', 'آمنة للأطفال'),
  breathable: adj('Breathable', 'جيد التهوية', 'جيدة التهوية'),
  family: adj('Family', 'عائلي', 'عائلية'),
  fresh: adj('Fresh', 'منعش', 'منعشة'),
  gentle: adj('Gentle', 'لطيف', 'لطيفة'),
  sporty: adj('Sporty', 'رياضي', 'رياضية'),
  digital: adj('Digital', 'رقمي', 'رقمية'),
  traditional: adj('Traditional', 'تقليدي', 'تقليدية'),
  royal: adj('Royal', 'ملكي', 'ملكية'),
  orthopedic: adj('Orthopedic', 'طبي', 'طبية'),
  quickPitch: adj('Quick-Pitch', 'سريع التركيب', 'سريعة التركيب'),
};

const M = {
  cotton: b('Cotton', 'من القطن'),
  linen: b('Linen', 'من الكتان'),
  silk: b('Silk', 'من الحرير'),
  chiffon: b('Chiffon', 'من الشيفون'),
  crepe: b('Crepe', 'من الكريب'),
  nida: b('Nida', 'من قماش الندى'),
  japaneseFabric: b('Japanese Fabric', 'من القماش الياباني'),
  leather: b('Leather', 'من الجلد'),
  suede: b('Suede', 'من الشامواه'),
  mesh: b('Mesh', 'من القماش الشبكي'),
  canvas: b('Canvas', 'من قماش الكانفاس'),
  aluminium: b('Aluminium', 'من الألمنيوم'),
  stainlessSteel: b('Stainless Steel', 'من الفولاذ المقاوم للصدأ'),
  carbon: b('Carbon Fibre', 'من ألياف الكربون'),
  silicone: b('Silicone', 'من السيليكون'),
  ceramic: b('Ceramic', 'من السيراميك'),
  granite: b('Granite', 'من الجرانيت'),
  glass: b('Glass', 'من الزجاج'),
  copper: b('Copper', 'من النحاس'),
  bamboo: b('Bamboo', 'من ألياف الخيزران'),
  microfibre: b('Microfibre', 'من الألياف الدقيقة'),
  memoryFoam: b('Memory Foam', 'من الإسفنج الطبي'),
  wood: b('Wooden', 'من الخشب'),
  rubber: b('Natural Rubber', 'من المطاط الطبيعي'),
  oud: b('Oud', 'بالعود'),
  rose: b('Taif Rose', 'بالورد الطائفي'),
  amber: b('Amber', 'بالعنبر'),
  musk: b('White Musk', 'بالمسك الأبيض'),
  saffron: b('Saffron', 'بالزعفران'),
  vitaminC: b('Vitamin C', 'بفيتامين سي'),
  hyaluronic: b('Hyaluronic', 'بحمض الهيالورونيك'),
  argan: b('Argan Oil', 'بزيت الأرغان'),
  aloe: b('Aloe Vera', 'بالصبار'),
};

const NO_EDITION = b('', '');
const TECH_EDITIONS = [
  NO_EDITION,
  NO_EDITION,
  b('Pro', 'برو'),
  b('Max', 'ماكس'),
  b('Lite', 'لايت'),
  b('Plus', 'بلس'),
  b('Mini', 'ميني'),
  b('Air', 'إير'),
  b('Ultra', 'ألترا'),
];
const COLLECTIONS = [
  NO_EDITION,
  NO_EDITION,
  NO_EDITION,
  b('Limited Edition', 'إصدار محدود'),
  b('Ramadan Collection', 'مجموعة رمضان'),
  b('Eid Collection', 'مجموعة العيد'),
  b('Summer Collection', 'مجموعة الصيف'),
];
const HOME_EDITIONS = [NO_EDITION, NO_EDITION, b('Pro', 'برو'), b('Plus', 'بلس'), b('Special Edition', 'إصدار خاص')];
const NO_EDITIONS = [NO_EDITION];

const COLOURS = {
  BLK: opt('BLK', 'Black', 'أسود'),
  WHT: opt('WHT', 'White', 'أبيض'),
  SLV: opt('SLV', 'Silver', 'فضي'),
  GRY: opt('GRY', 'Grey', 'رمادي'),
  BLU: opt('BLU', 'Blue', 'أزرق'),
  NVY: opt('NVY', 'Navy', 'كحلي'),
  RED: opt('RED', 'Red', 'أحمر'),
  GLD: opt('GLD', 'Gold', 'ذهبي'),
  RSG: opt('RSG', 'Rose Gold', 'ذهبي وردي'),
  GRN: opt('GRN', 'Green', 'أخضر'),
  OLV: opt('OLV', 'Olive', 'زيتوني'),
  BEI: opt('BEI', 'Beige', 'بيج'),
  BRN: opt('BRN', 'Brown', 'بني'),
  PNK: opt('PNK', 'Pink', 'وردي'),
  BRG: opt('BRG', 'Burgundy', 'عنابي'),
  IVR: opt('IVR', 'Ivory', 'عاجي'),
  PRP: opt('PRP', 'Purple', 'بنفسجي'),
  YEL: opt('YEL', 'Yellow', 'أصفر'),
  ORG: opt('ORG', 'Orange', 'برتقالي'),
} satisfies Record<string, OptionValue>;

type ColourCode = keyof typeof COLOURS;

const colours = (...codes: ColourCode[]): OptionAxis =>
  axis(
    b('Colour', 'اللون'),
    codes.map((code) => COLOURS[code]),
  );
const sameLabel = (codes: string[]): OptionValue[] => codes.map((code) => opt(code, code, code));
const unitValues = (enUnit: string, arUnit: string, amounts: string[], factors: number[]): OptionValue[] =>
  amounts.map((amount, i) => opt(`${amount}${enUnit}`.toUpperCase(), `${amount} ${enUnit}`, `${amount} ${arUnit}`, factors[i]));

const TECH_COLOURS = colours('BLK', 'WHT', 'SLV', 'GRY', 'BLU');
const PHONE_COLOURS = colours('BLK', 'WHT', 'BLU', 'GLD', 'RSG');
const APPAREL_COLOURS = colours('BLK', 'WHT', 'NVY', 'GRY', 'OLV', 'BEI', 'BRG');
const THOBE_COLOURS = colours('WHT', 'IVR', 'BEI', 'GRY', 'NVY');
const ABAYA_COLOURS = colours('BLK', 'NVY', 'BRN', 'OLV');
const SHOE_COLOURS = colours('BLK', 'WHT', 'GRY', 'NVY', 'BEI');
const BAG_COLOURS = colours('BLK', 'BRN', 'BEI', 'NVY', 'BRG');
const HOME_COLOURS = colours('BLK', 'WHT', 'SLV', 'RED', 'GRN');
const LINEN_COLOURS = colours('WHT', 'IVR', 'BEI', 'GRY');
const PLAY_COLOURS = colours('BLK', 'BLU', 'RED', 'GRN', 'YEL', 'PRP', 'PNK', 'ORG');

const CLOTHING_SIZES = axis(b('Size', 'المقاس'), sameLabel(['S', 'M', 'L', 'XL', 'XXL']));
const GEAR_SIZES = axis(b('Size', 'المقاس'), sameLabel(['S', 'M', 'L']));
const LENGTH_SIZES = axis(b('Size', 'المقاس'), sameLabel(['52', '54', '56', '58', '60']));
const SHOE_SIZES = axis(b('Size', 'المقاس'), sameLabel(['40', '41', '42', '43', '44', '45']));
const PHONE_STORAGE = axis(b('Storage', 'السعة'), [
  opt('128', '128GB', '128 جيجابايت'),
  opt('256', '256GB', '256 جيجابايت', 1.15),
  opt('512', '512GB', '512 جيجابايت', 1.35),
  opt('1TB', '1TB', '1 تيرابايت', 1.6),
]);
const LAPTOP_MEMORY = axis(b('Memory', 'الذاكرة'), [opt('16G', '16GB', '16 جيجابايت'), opt('32G', '32GB', '32 جيجابايت', 1.2)]);
const LAPTOP_STORAGE = axis(b('Storage', 'السعة'), [opt('512', '512GB', '512 جيجابايت'), opt('1TB', '1TB', '1 تيرابايت', 1.15)]);
const WATCH_CASE = axis(b('Case Size', 'مقاس الساعة'), unitValues('mm', 'مم', ['41', '45'], [1, 1.1]));
const CHARGER_POWER = axis(b('Power', 'القدرة'), unitValues('W', 'واط', ['20', '35', '65'], [1, 1.3, 1.8]));
const POWER_BANK_CAPACITY = axis(b('Capacity', 'السعة'), unitValues('mAh', 'مللي أمبير', ['10000', '20000'], [1, 1.4]));
const FRYER_CAPACITY = axis(b('Capacity', 'السعة'), unitValues('L', 'لتر', ['4', '6', '8'], [1, 1.2, 1.4]));
const PAN_DIAMETER = axis(b('Diameter', 'القطر'), unitValues('cm', 'سم', ['24', '28', '32'], [1, 1.15, 1.3]));
const COOKWARE_PIECES = axis(b('Pieces', 'عدد القطع'), [
  opt('5PC', '5 Pieces', '5 قطع'),
  opt('10PC', '10 Pieces', '10 قطع', 1.5),
  opt('12PC', '12 Pieces', '12 قطعة', 1.8),
]);
const BED_SIZE = axis(b('Bed Size', 'مقاس السرير'), [
  opt('SGL', 'Single', 'مفرد'),
  opt('DBL', 'Double', 'مزدوج', 1.2),
  opt('QN', 'Queen', 'كوين', 1.35),
  opt('KG', 'King', 'كينغ', 1.5),
]);
const PILLOW_FIRMNESS = axis(b('Firmness', 'درجة الصلابة'), [
  opt('SFT', 'Soft', 'ناعمة'),
  opt('MED', 'Medium', 'متوسطة'),
  opt('FRM', 'Firm', 'صلبة'),
]);
const PERFUME_VOLUME = axis(b('Volume', 'الحجم'), unitValues('ml', 'مل', ['50', '100'], [1, 1.6]));
const OUD_VOLUME = axis(b('Volume', 'الحجم'), unitValues('ml', 'مل', ['3', '6', '12'], [1, 1.8, 3.2]));
const CREAM_VOLUME = axis(b('Volume', 'الحجم'), unitValues('ml', 'مل', ['50', '100'], [1, 1.5]));
const SERUM_VOLUME = axis(b('Volume', 'الحجم'), unitValues('ml', 'مل', ['30', '50'], [1, 1.5]));
const INCENSE_WEIGHT = axis(b('Weight', 'الوزن'), unitValues('g', 'غرام', ['50', '100'], [1, 1.7]));
const LIPSTICK_SHADE = axis(b('Shade', 'درجة اللون'), [
  opt('RED', 'Classic Red', 'أحمر كلاسيكي'),
  opt('ROS', 'Rose', 'وردي'),
  opt('NUD', 'Nude', 'نود'),
  opt('BER', 'Berry', 'توتي'),
  opt('COR', 'Coral', 'مرجاني'),
]);
const MAT_THICKNESS = axis(b('Thickness', 'السماكة'), unitValues('mm', 'مم', ['6', '8'], [1, 1.2]));
const DUMBBELL_WEIGHT = axis(b('Weight', 'الوزن'), unitValues('kg', 'كغ', ['10', '20', '30'], [1, 1.7, 2.3]));
const TENT_CAPACITY = axis(b('Capacity', 'السعة'), [
  opt('2P', '2 Person', 'لشخصين'),
  opt('4P', '4 Person', 'لأربعة أشخاص', 1.4),
  opt('6P', '6 Person', 'لستة أشخاص', 1.8),
]);
const WHEEL_SIZE = axis(b('Wheel Size', 'مقاس العجلات'), [
  opt('24', '24"', '24 إنش'),
  opt('26', '26"', '26 إنش', 1.1),
  opt('29', '29"', '29 إنش', 1.2),
]);
const BLOCK_PIECES = axis(b('Pieces', 'عدد القطع'), [
  opt('250PC', '250 Pieces', '250 قطعة'),
  opt('500PC', '500 Pieces', '500 قطعة', 1.6),
  opt('1000PC', '1000 Pieces', '1000 قطعة', 2.6),
]);
const PUZZLE_PIECES = axis(b('Pieces', 'عدد القطع'), [
  opt('500PC', '500 Pieces', '500 قطعة'),
  opt('1000PC', '1000 Pieces', '1000 قطعة', 1.4),
]);
const GAME_LANGUAGE = axis(b('Language', 'اللغة'), [opt('AR', 'Arabic', 'العربية'), opt('EN', 'English', 'الإنجليزية')]);

const PRODUCT_TYPES: ProductType[] = [
  {
    code: 'PHN',
    categoryKey: 'phones',
    noun: b('Smartphone', 'هاتف ذكي'),
    gender: 'm',
    adjectives: [A.fast, A.powerful, A.compact, A.slim],
    materials: [],
    editions: TECH_EDITIONS,
    priceRange: [799, 6999],
    axes: [PHONE_STORAGE, PHONE_COLOURS],
    blurb: b(
      'a fast smartphone with a bright OLED display, a versatile triple camera and all-day battery life.',
      'هاتف سريع بشاشة OLED ساطعة وكاميرا ثلاثية متعددة الاستخدامات وبطارية تدوم طوال اليوم.',
    ),
  },
  {
    code: 'LAP',
    categoryKey: 'laptops',
    noun: b('Laptop', 'لابتوب'),
    gender: 'm',
    adjectives: [A.slim, A.lightweight, A.powerful, A.professional],
    materials: [M.aluminium, M.carbon],
    editions: TECH_EDITIONS,
    priceRange: [2499, 9999],
    axes: [LAPTOP_MEMORY, LAPTOP_STORAGE],
    blurb: b(
      'a thin, powerful laptop with a sharp display, long battery life and a comfortable backlit keyboard.',
      'جهاز نحيف وقوي بشاشة عالية الدقة وبطارية طويلة العمر ولوحة مفاتيح مريحة بإضاءة خلفية.',
    ),
  },
  {
    code: 'HPH',
    categoryKey: 'headphones',
    noun: b('Headphones', 'سماعات رأس'),
    gender: 'f',
    adjectives: [A.wireless, A.noiseCancelling, A.foldable, A.professional],
    materials: [],
    editions: TECH_EDITIONS,
    priceRange: [149, 1499],
    axes: [TECH_COLOURS],
    blurb: b(
      'over-ear headphones with rich, detailed sound and soft cushions for long listening sessions.',
      'صوت غني ونقي مع وسائد ناعمة تمنحك الراحة طوال ساعات الاستماع.',
    ),
  },
  {
    code: 'EAR',
    categoryKey: 'headphones',
    noun: b('Earbuds', 'سماعات أذن'),
    gender: 'f',
    adjectives: [A.wireless, A.noiseCancelling, A.sporty, A.waterproof, A.compact],
    materials: [],
    editions: TECH_EDITIONS,
    priceRange: [99, 899],
    axes: [TECH_COLOURS],
    blurb: b(
      'true wireless earbuds with clear calls, deep bass and a pocket-sized charging case.',
      'سماعات لاسلكية بالكامل بمكالمات واضحة وصوت جهير عميق وعلبة شحن صغيرة تناسب الجيب.',
    ),
  },
  {
    code: 'SPK',
    categoryKey: 'speakers',
    noun: b('Speaker', 'مكبر صوت'),
    gender: 'm',
    adjectives: [A.portable, A.waterproof, A.powerful, A.smart],
    materials: [],
    editions: TECH_EDITIONS,
    priceRange: [99, 1299],
    axes: [TECH_COLOURS],
    blurb: b(
      'a Bluetooth speaker with room-filling sound and up to 20 hours of playback.',
      'مكبر صوت بتقنية البلوتوث يملأ المكان بصوت قوي ويعمل حتى 20 ساعة متواصلة.',
    ),
  },
  {
    code: 'WAT',
    categoryKey: 'wearables',
    noun: b('Smartwatch', 'ساعة ذكية'),
    gender: 'f',
    adjectives: [A.waterproof, A.sporty, A.elegant, A.lightweight],
    materials: [M.aluminium, M.stainlessSteel],
    editions: TECH_EDITIONS,
    priceRange: [399, 2999],
    axes: [WATCH_CASE, TECH_COLOURS],
    blurb: b(
      'tracks your heart rate, sleep and workouts, with notifications right on your wrist.',
      'تتابع نبضات القلب والنوم والتمارين، وتعرض الإشعارات مباشرة على معصمك.',
    ),
  },
  {
    code: 'BND',
    categoryKey: 'wearables',
    noun: b('Fitness Band', 'سوار لياقة'),
    gender: 'm',
    adjectives: [A.waterproof, A.sporty, A.lightweight, A.slim],
    materials: [M.silicone],
    editions: TECH_EDITIONS,
    priceRange: [99, 399],
    axes: [PLAY_COLOURS],
    blurb: b(
      'a slim band that counts steps, monitors sleep and lasts up to two weeks per charge.',
      'سوار رفيع يحسب خطواتك ويراقب نومك وتدوم بطاريته حتى أسبوعين بشحنة واحدة.',
    ),
  },
  {
    code: 'CHG',
    categoryKey: 'electronics-accessories',
    noun: b('Charger', 'شاحن'),
    gender: 'm',
    adjectives: [A.fast, A.compact, A.wireless],
    materials: [],
    editions: TECH_EDITIONS,
    priceRange: [49, 299],
    axes: [CHARGER_POWER],
    blurb: b(
      'a compact charger with fast-charging support for phones, tablets and laptops.',
      'شاحن صغير يدعم الشحن السريع للهواتف والأجهزة اللوحية وأجهزة اللابتوب.',
    ),
  },
  {
    code: 'PWB',
    categoryKey: 'electronics-accessories',
    noun: b('Power Bank', 'بطارية متنقلة'),
    gender: 'f',
    adjectives: [A.fast, A.compact, A.slim, A.wireless],
    materials: [],
    editions: TECH_EDITIONS,
    priceRange: [79, 349],
    axes: [POWER_BANK_CAPACITY, colours('BLK', 'WHT')],
    blurb: b(
      'a power bank that keeps your devices charged on long trips and busy days.',
      'بطارية احتياطية تبقي أجهزتك مشحونة في الرحلات الطويلة والأيام المزدحمة.',
    ),
  },
  {
    code: 'CAS',
    categoryKey: 'electronics-accessories',
    noun: b('Phone Case', 'غطاء هاتف'),
    gender: 'm',
    adjectives: [A.slim, A.durable, A.classic],
    materials: [M.silicone, M.leather, M.carbon],
    editions: NO_EDITIONS,
    priceRange: [39, 199],
    axes: [TECH_COLOURS],
    blurb: b(
      'a precise-fit case with raised edges that protect the screen and camera from drops.',
      'غطاء بمقاس دقيق وحواف بارزة تحمي الشاشة والكاميرا من السقوط.',
    ),
  },
  {
    code: 'TSH',
    categoryKey: 'mens-tops',
    noun: b('T-Shirt', 'تيشيرت'),
    gender: 'm',
    adjectives: [A.classic, A.casual, A.everyday, A.breathable, A.sporty],
    materials: [M.cotton, M.linen],
    editions: COLLECTIONS,
    priceRange: [49, 199],
    axes: [CLOTHING_SIZES, APPAREL_COLOURS],
    blurb: b(
      'a relaxed-fit T-shirt that stays soft and breathable through the summer heat.',
      'تيشيرت بقصة مريحة يبقى ناعماً ومنعشاً طوال أيام الصيف الحارة.',
    ),
  },
  {
    code: 'POL',
    categoryKey: 'mens-tops',
    noun: b('Polo Shirt', 'قميص بولو'),
    gender: 'm',
    adjectives: [A.classic, A.casual, A.elegant],
    materials: [M.cotton],
    editions: COLLECTIONS,
    priceRange: [79, 299],
    axes: [CLOTHING_SIZES, APPAREL_COLOURS],
    blurb: b(
      'a smart-casual polo with a structured collar, ideal for the office or the weekend.',
      'قميص بولو بياقة أنيقة يناسب العمل وعطلة نهاية الأسبوع.',
    ),
  },
  {
    code: 'THB',
    categoryKey: 'thobes',
    noun: b('Thobe', 'ثوب'),
    gender: 'm',
    adjectives: [A.classic, A.elegant, A.comfortable, A.premium],
    materials: [M.cotton, M.linen, M.japaneseFabric],
    editions: COLLECTIONS,
    priceRange: [129, 599],
    axes: [LENGTH_SIZES, THOBE_COLOURS],
    blurb: b(
      'a tailored Saudi-cut thobe with a crisp collar and a light, breathable feel.',
      'ثوب بتفصيل سعودي وياقة مرتبة، مريح وخفيف للاستخدام اليومي والمناسبات.',
    ),
  },
  {
    code: 'SHM',
    categoryKey: 'thobes',
    noun: b('Shemagh', 'شماغ'),
    gender: 'm',
    adjectives: [A.classic, A.premium, A.traditional],
    materials: [M.cotton],
    editions: COLLECTIONS,
    priceRange: [99, 399],
    axes: [],
    blurb: b(
      'a classic red-and-white shemagh that holds its shape and drapes beautifully.',
      'شماغ كلاسيكي بالنقشة الحمراء يحافظ على شكله وينسدل بأناقة.',
    ),
  },
  {
    code: 'DRS',
    categoryKey: 'dresses',
    noun: b('Dress', 'فستان'),
    gender: 'm',
    adjectives: [A.elegant, A.casual, A.embroidered, A.modern],
    materials: [M.silk, M.cotton, M.chiffon],
    editions: COLLECTIONS,
    priceRange: [149, 899],
    axes: [CLOTHING_SIZES, APPAREL_COLOURS],
    blurb: b(
      'a flowing dress with a flattering silhouette for dinners, gatherings and Eid.',
      'فستان انسيابي بقصة أنيقة يناسب العزائم والمناسبات والعيد.',
    ),
  },
  {
    code: 'ABY',
    categoryKey: 'abayas',
    noun: b('Abaya', 'عباءة'),
    gender: 'f',
    adjectives: [A.elegant, A.embroidered, A.modern, A.classic],
    materials: [M.crepe, M.nida, M.linen],
    editions: COLLECTIONS,
    priceRange: [199, 1299],
    axes: [LENGTH_SIZES, ABAYA_COLOURS],
    blurb: b(
      'a lightweight abaya with clean lines and delicate detailing for everyday elegance.',
      'عباءة خفيفة بتصميم راقٍ وتفاصيل ناعمة لإطلالة أنيقة كل يوم.',
    ),
  },
  {
    code: 'SNK',
    categoryKey: 'shoes',
    noun: b('Sneakers', 'حذاء رياضي'),
    gender: 'm',
    adjectives: [A.lightweight, A.breathable, A.comfortable, A.casual, A.classic],
    materials: [M.mesh, M.leather, M.suede, M.canvas],
    editions: COLLECTIONS,
    priceRange: [149, 799],
    axes: [SHOE_SIZES, SHOE_COLOURS],
    blurb: b(
      'cushioned sneakers with a grippy sole, built for long days on your feet.',
      'حذاء بنعل مبطن ومانع للانزلاق مصمم للمشي لساعات طويلة براحة تامة.',
    ),
  },
  {
    code: 'SDL',
    categoryKey: 'shoes',
    noun: b('Sandals', 'صندل'),
    gender: 'm',
    adjectives: [A.comfortable, A.classic, A.elegant, A.traditional],
    materials: [M.leather],
    editions: COLLECTIONS,
    priceRange: [99, 449],
    axes: [SHOE_SIZES],
    blurb: b(
      'easy slip-on sandals with a cushioned footbed for home, the mosque and errands.',
      'صندل سهل الارتداء بنعل مريح يناسب المنزل والمسجد والمشاوير اليومية.',
    ),
  },
  {
    code: 'BPK',
    categoryKey: 'bags',
    noun: b('Backpack', 'حقيبة ظهر'),
    gender: 'f',
    adjectives: [A.durable, A.waterproof, A.lightweight, A.modern],
    materials: [M.canvas, M.leather],
    editions: COLLECTIONS,
    priceRange: [99, 599],
    axes: [BAG_COLOURS],
    blurb: b(
      'a roomy backpack with a padded laptop sleeve and plenty of organiser pockets.',
      'حقيبة واسعة بجيب مبطن للابتوب وجيوب متعددة لتنظيم أغراضك.',
    ),
  },
  {
    code: 'HBG',
    categoryKey: 'bags',
    noun: b('Handbag', 'حقيبة يد'),
    gender: 'f',
    adjectives: [A.elegant, A.classic, A.modern, A.premium],
    materials: [M.leather, M.suede],
    editions: COLLECTIONS,
    priceRange: [199, 1499],
    axes: [BAG_COLOURS],
    blurb: b(
      'a structured handbag with a spacious interior and a detachable shoulder strap.',
      'حقيبة أنيقة بمساحة داخلية واسعة وحزام كتف قابل للفصل.',
    ),
  },
  {
    code: 'COF',
    categoryKey: 'kitchen-appliances',
    noun: b('Coffee Machine', 'آلة قهوة'),
    gender: 'f',
    adjectives: [A.automatic, A.compact, A.professional, A.smart],
    materials: [M.stainlessSteel],
    editions: HOME_EDITIONS,
    priceRange: [299, 2999],
    axes: [HOME_COLOURS],
    blurb: b('brews café-style espresso and lattes at the touch of a button.', 'آلة تحضّر الإسبريسو واللاتيه بجودة المقاهي بلمسة زر واحدة.'),
  },
  {
    code: 'AFR',
    categoryKey: 'kitchen-appliances',
    noun: b('Air Fryer', 'قلاية هوائية'),
    gender: 'f',
    adjectives: [A.smart, A.compact, A.digital, A.family],
    materials: [],
    editions: HOME_EDITIONS,
    priceRange: [199, 899],
    axes: [FRYER_CAPACITY],
    blurb: b('crisps your favourite dishes with little or no oil.', 'قلاية تمنح أطباقك المفضلة قرمشة شهية بقليل من الزيت أو بدونه.'),
  },
  {
    code: 'BLN',
    categoryKey: 'kitchen-appliances',
    noun: b('Blender', 'خلاط'),
    gender: 'm',
    adjectives: [A.powerful, A.compact, A.professional, A.portable],
    materials: [M.glass],
    editions: HOME_EDITIONS,
    priceRange: [99, 699],
    axes: [HOME_COLOURS],
    blurb: b(
      'a high-speed blender for smoothies, soups and fresh juices in seconds.',
      'خلاط عالي السرعة لتحضير العصائر الطازجة والسموذي والشوربات في ثوانٍ.',
    ),
  },
  {
    code: 'PAN',
    categoryKey: 'cookware',
    noun: b('Frying Pan', 'مقلاة'),
    gender: 'f',
    adjectives: [A.nonStick, A.durable, A.classic],
    materials: [M.granite, M.ceramic, M.stainlessSteel],
    editions: HOME_EDITIONS,
    priceRange: [59, 399],
    axes: [PAN_DIAMETER],
    blurb: b('a frying pan with even heat distribution and an easy-clean surface.', 'مقلاة بتوزيع متساوٍ للحرارة وسطح سهل التنظيف.'),
  },
  {
    code: 'CKS',
    categoryKey: 'cookware',
    noun: b('Cookware Set', 'طقم أواني طهي'),
    gender: 'm',
    adjectives: [A.nonStick, A.premium, A.durable],
    materials: [M.granite, M.ceramic, M.stainlessSteel],
    editions: HOME_EDITIONS,
    priceRange: [199, 1499],
    axes: [COOKWARE_PIECES],
    blurb: b('a complete cookware set for everyday cooking and family gatherings.', 'طقم متكامل للطبخ اليومي وعزائم العائلة.'),
  },
  {
    code: 'DLH',
    categoryKey: 'cookware',
    noun: b('Dallah', 'دلة'),
    gender: 'f',
    adjectives: [A.traditional, A.elegant, A.premium],
    materials: [M.stainlessSteel, M.copper],
    editions: HOME_EDITIONS,
    priceRange: [79, 499],
    axes: [],
    blurb: b(
      'a traditional coffee pot for serving fragrant Arabic coffee to your guests.',
      'دلة تقليدية لتقديم القهوة العربية بالهيل لضيوفك.',
    ),
  },
  {
    code: 'SHT',
    categoryKey: 'bedding',
    noun: b('Bed Sheet Set', 'طقم شراشف'),
    gender: 'm',
    adjectives: [A.soft, A.premium, A.classic],
    materials: [M.cotton, M.bamboo, M.microfibre, M.silk],
    editions: HOME_EDITIONS,
    priceRange: [149, 899],
    axes: [BED_SIZE, LINEN_COLOURS],
    blurb: b(
      'a breathable set with a fitted sheet, a flat sheet and matching pillowcases.',
      'طقم يتضمن شرشفاً بمطاط وشرشفاً علوياً وأكياس وسائد متناسقة.',
    ),
  },
  {
    code: 'PIL',
    categoryKey: 'bedding',
    noun: b('Pillow', 'وسادة'),
    gender: 'f',
    adjectives: [A.soft, A.comfortable, A.orthopedic],
    materials: [M.memoryFoam, M.microfibre, M.bamboo],
    editions: HOME_EDITIONS,
    priceRange: [49, 299],
    axes: [PILLOW_FIRMNESS],
    blurb: b(
      'a supportive pillow that keeps your neck aligned for deeper, more restful sleep.',
      'وسادة تدعم الرقبة وتحافظ على استقامتها لنوم أعمق وأكثر راحة.',
    ),
  },
  {
    code: 'LMP',
    categoryKey: 'lighting',
    noun: b('Desk Lamp', 'مصباح مكتب'),
    gender: 'm',
    adjectives: [A.rechargeable, A.modern, A.adjustable, A.smart],
    materials: [M.aluminium, M.wood],
    editions: HOME_EDITIONS,
    priceRange: [79, 449],
    axes: [HOME_COLOURS],
    blurb: b(
      'a desk lamp with adjustable brightness and warm-to-cool colour temperatures.',
      'مصباح بإضاءة قابلة للتعديل ودرجات لون من الدافئ إلى البارد.',
    ),
  },
  {
    code: 'PRF',
    categoryKey: 'fragrances',
    noun: b('Perfume', 'عطر'),
    gender: 'm',
    adjectives: [A.oriental, A.longLasting, A.fresh, A.premium],
    materials: [M.oud, M.rose, M.amber, M.musk, M.saffron],
    editions: COLLECTIONS,
    priceRange: [149, 1299],
    axes: [PERFUME_VOLUME],
    blurb: b(
      'an eau de parfum with a rich, lasting trail inspired by Arabian evenings.',
      'عطر غني يترك أثراً يدوم طويلاً مستوحى من الأمسيات العربية.',
    ),
  },
  {
    code: 'OUD',
    categoryKey: 'fragrances',
    noun: b('Oud Oil', 'دهن عود'),
    gender: 'm',
    adjectives: [A.premium, A.oriental, A.natural, A.royal],
    materials: [],
    editions: COLLECTIONS,
    priceRange: [199, 2999],
    axes: [OUD_VOLUME],
    blurb: b('pure aged oud oil with a deep, smoky aroma that lasts all day.', 'دهن عود معتّق برائحة عميقة ودخانية تدوم طوال اليوم.'),
  },
  {
    code: 'BKH',
    categoryKey: 'fragrances',
    noun: b('Bakhoor', 'بخور'),
    gender: 'm',
    adjectives: [A.oriental, A.premium, A.natural, A.royal],
    materials: [M.oud, M.rose, M.amber],
    editions: COLLECTIONS,
    priceRange: [49, 349],
    axes: [INCENSE_WEIGHT],
    blurb: b(
      'slow-burning incense that fills your majlis with a warm, welcoming scent.',
      'بخور يحترق ببطء ويملأ مجلسك برائحة دافئة ترحب بضيوفك.',
    ),
  },
  {
    code: 'MST',
    categoryKey: 'skincare',
    noun: b('Moisturiser', 'كريم مرطب'),
    gender: 'm',
    adjectives: [A.gentle, A.natural, A.everyday],
    materials: [M.aloe, M.argan, M.hyaluronic],
    editions: COLLECTIONS,
    priceRange: [49, 349],
    axes: [CREAM_VOLUME],
    blurb: b(
      'a light daily moisturiser that hydrates without leaving a greasy finish.',
      'كريم خفيف للاستخدام اليومي يرطب البشرة دون ملمس دهني.',
    ),
  },
  {
    code: 'SRM',
    categoryKey: 'skincare',
    noun: b('Face Serum', 'سيروم للوجه'),
    gender: 'm',
    adjectives: [A.hydrating, A.gentle, A.natural],
    materials: [M.vitaminC, M.hyaluronic, M.argan],
    editions: COLLECTIONS,
    priceRange: [69, 449],
    axes: [SERUM_VOLUME],
    blurb: b('a concentrated serum that boosts radiance and evens out skin tone.', 'سيروم مركّز يمنح البشرة نضارة ويوحّد لونها.'),
  },
  {
    code: 'SUN',
    categoryKey: 'skincare',
    noun: b('Sunscreen', 'واقي شمس'),
    gender: 'm',
    adjectives: [A.lightweight, A.waterproof, A.gentle],
    materials: [M.aloe],
    editions: COLLECTIONS,
    priceRange: [49, 199],
    axes: [CREAM_VOLUME],
    blurb: b(
      'broad-spectrum SPF 50 protection in a fast-absorbing, non-greasy formula.',
      'حماية واسعة الطيف بعامل SPF 50 بتركيبة سريعة الامتصاص وغير دهنية.',
    ),
  },
  {
    code: 'LIP',
    categoryKey: 'makeup',
    noun: b('Lipstick', 'أحمر شفاه'),
    gender: 'm',
    adjectives: [A.matte, A.longLasting, A.creamy],
    materials: [],
    editions: COLLECTIONS,
    priceRange: [39, 199],
    axes: [LIPSTICK_SHADE],
    blurb: b(
      'a richly pigmented lipstick that glides on smoothly and stays put for hours.',
      'لون غني ينساب بنعومة على الشفاه ويثبت لساعات طويلة.',
    ),
  },
  {
    code: 'MSC',
    categoryKey: 'makeup',
    noun: b('Mascara', 'ماسكارا'),
    gender: 'f',
    adjectives: [A.waterproof, A.longLasting],
    materials: [],
    editions: COLLECTIONS,
    priceRange: [39, 149],
    axes: [],
    blurb: b('a mascara that lifts, lengthens and defines every lash without clumping.', 'ماسكارا ترفع الرموش وتطيلها وتفصلها دون تكتل.'),
  },
  {
    code: 'YGM',
    categoryKey: 'fitness',
    noun: b('Yoga Mat', 'سجادة يوغا'),
    gender: 'f',
    adjectives: [A.nonSlip, A.lightweight, A.foldable],
    materials: [M.rubber],
    editions: NO_EDITIONS,
    priceRange: [59, 299],
    axes: [MAT_THICKNESS, PLAY_COLOURS],
    blurb: b('a cushioned mat for yoga, pilates and home workouts.', 'سجادة مريحة لليوغا والبيلاتس والتمارين المنزلية.'),
  },
  {
    code: 'DMB',
    categoryKey: 'fitness',
    noun: b('Dumbbell Set', 'طقم دمبل'),
    gender: 'm',
    adjectives: [A.adjustable, A.professional, A.compact],
    materials: [],
    editions: HOME_EDITIONS,
    priceRange: [149, 1299],
    axes: [DUMBBELL_WEIGHT],
    blurb: b('a space-saving dumbbell set for strength training at home.', 'طقم يوفر المساحة لتمارين القوة في المنزل.'),
  },
  {
    code: 'TNT',
    categoryKey: 'outdoor',
    noun: b('Tent', 'خيمة'),
    gender: 'f',
    adjectives: [A.waterproof, A.family, A.lightweight, A.quickPitch],
    materials: [],
    editions: NO_EDITIONS,
    priceRange: [199, 1499],
    axes: [TENT_CAPACITY],
    blurb: b(
      'a sturdy tent that sets up in minutes for desert camping and weekend trips.',
      'خيمة متينة تُنصب في دقائق للتخييم في البر ورحلات نهاية الأسبوع.',
    ),
  },
  {
    code: 'CHR',
    categoryKey: 'outdoor',
    noun: b('Camping Chair', 'كرسي تخييم'),
    gender: 'm',
    adjectives: [A.foldable, A.lightweight, A.portable, A.durable],
    materials: [M.aluminium, M.canvas],
    editions: NO_EDITIONS,
    priceRange: [49, 299],
    axes: [PLAY_COLOURS],
    blurb: b('a camping chair with a cup holder, perfect for the beach or the desert.', 'كرسي مع حامل أكواب، مثالي للشاطئ والبر.'),
  },
  {
    code: 'BIK',
    categoryKey: 'cycling',
    noun: b('Bicycle', 'دراجة هوائية'),
    gender: 'f',
    adjectives: [A.lightweight, A.durable, A.sporty, A.foldable],
    materials: [M.aluminium, M.carbon, M.stainlessSteel],
    editions: TECH_EDITIONS,
    priceRange: [799, 5999],
    axes: [WHEEL_SIZE, PLAY_COLOURS],
    blurb: b(
      'a responsive bicycle with smooth gears and reliable brakes for city and trail rides.',
      'دراجة سلسة بتروس ناعمة ومكابح موثوقة للتنقل في المدينة والمسارات الوعرة.',
    ),
  },
  {
    code: 'HLM',
    categoryKey: 'cycling',
    noun: b('Helmet', 'خوذة'),
    gender: 'f',
    adjectives: [A.lightweight, A.breathable, A.adjustable],
    materials: [],
    editions: TECH_EDITIONS,
    priceRange: [99, 499],
    axes: [GEAR_SIZES, PLAY_COLOURS],
    blurb: b('a ventilated helmet with an adjustable fit for safer rides.', 'خوذة جيدة التهوية بمقاس قابل للتعديل لركوب أكثر أماناً.'),
  },
  {
    code: 'BLD',
    categoryKey: 'building-sets',
    noun: b('Building Blocks', 'مكعبات بناء'),
    gender: 'f',
    adjectives: [A.creative, A.educational, A.kidSafe, A.classic],
    materials: [M.wood],
    editions: COLLECTIONS,
    priceRange: [59, 599],
    axes: [BLOCK_PIECES],
    blurb: b(
      'colourful interlocking bricks that spark creativity and build fine motor skills.',
      'مكعبات ملونة متداخلة تنمّي الإبداع والمهارات الحركية الدقيقة.',
    ),
  },
  {
    code: 'DOL',
    categoryKey: 'dolls',
    noun: b('Doll', 'دمية'),
    gender: 'f',
    adjectives: [A.classic, A.kidSafe, A.soft],
    materials: [],
    editions: COLLECTIONS,
    priceRange: [49, 299],
    axes: [],
    blurb: b(
      'a huggable doll made from soft, child-safe materials with washable clothes.',
      'دمية محببة مصنوعة من خامات ناعمة وآمنة للأطفال مع ملابس قابلة للغسل.',
    ),
  },
  {
    code: 'PLS',
    categoryKey: 'dolls',
    noun: b('Plush Toy', 'لعبة محشوة'),
    gender: 'f',
    adjectives: [A.soft, A.kidSafe],
    materials: [],
    editions: COLLECTIONS,
    priceRange: [29, 199],
    axes: [PLAY_COLOURS],
    blurb: b('a cuddly plush friend that makes the perfect bedtime companion.', 'لعبة ناعمة ترافق طفلك وقت النوم.'),
  },
  {
    code: 'BGM',
    categoryKey: 'board-games',
    noun: b('Board Game', 'لعبة لوحية'),
    gender: 'f',
    adjectives: [A.educational, A.family, A.classic, A.creative],
    materials: [],
    editions: COLLECTIONS,
    priceRange: [59, 249],
    axes: [GAME_LANGUAGE],
    blurb: b(
      'a board game for two to six players, ready for long evenings together.',
      'لعبة من لاعبين اثنين إلى ستة لاعبين لأمسيات ممتعة معاً.',
    ),
  },
  {
    code: 'PZL',
    categoryKey: 'board-games',
    noun: b('Jigsaw Puzzle', 'لعبة بازل'),
    gender: 'f',
    adjectives: [A.creative, A.educational, A.classic],
    materials: [],
    editions: COLLECTIONS,
    priceRange: [39, 199],
    axes: [PUZZLE_PIECES],
    blurb: b('a puzzle with thick, precisely cut pieces and a vivid finished image.', 'قطع سميكة مقصوصة بدقة وصورة نهائية بألوان زاهية.'),
  },
];

const DEPARTMENT_CLOSERS: Record<string, Bilingual[]> = {
  electronics: [
    b('Backed by a two-year local warranty.', 'ضمان محلي لمدة سنتين.'),
    b('Ships within 24 hours from our Riyadh warehouse.', 'يُشحن خلال 24 ساعة من مستودعنا في الرياض.'),
    b('Available in interest-free instalments.', 'متاح بالتقسيط بدون فوائد.'),
  ],
  fashion: [
    b('Free exchanges within 14 days.', 'استبدال مجاني خلال 14 يوماً.'),
    b('Designed for the Saudi climate.', 'تصميم يناسب أجواء المملكة.'),
    b('Gift wrapping available at checkout.', 'تغليف الهدايا متاح عند إتمام الطلب.'),
  ],
  'home-kitchen': [
    b('Free delivery on orders over 200 SAR.', 'توصيل مجاني للطلبات التي تزيد على 200 ريال.'),
    b('Backed by a one-year warranty.', 'ضمان لمدة سنة كاملة.'),
    b('Easy returns within 30 days.', 'إرجاع سهل خلال 30 يوماً.'),
  ],
  beauty: [
    b('100% authentic, sourced directly from the brand.', 'منتج أصلي 100% من الوكيل المعتمد.'),
    b('Beautifully gift-wrapped on request.', 'تغليف أنيق للهدايا عند الطلب.'),
    b('Free samples with every order.', 'عينات مجانية مع كل طلب.'),
  ],
  sports: [
    b('Built to handle the Saudi summer heat.', 'تصميم يتحمل حرارة الصيف في المملكة.'),
    b('Free delivery on orders over 200 SAR.', 'توصيل مجاني للطلبات التي تزيد على 200 ريال.'),
    b('Easy returns within 30 days.', 'إرجاع سهل خلال 30 يوماً.'),
  ],
  toys: [
    b('Suitable for ages 3 and up.', 'للأعمار من 3 سنوات فأكثر.'),
    b('Gift wrapping available at checkout.', 'تغليف الهدايا متاح عند إتمام الطلب.'),
    b('Meets Saudi toy safety standards.', 'مطابقة لمعايير سلامة الألعاب المعتمدة في المملكة.'),
  ],
};

function randomInt(rng: Random, min: number, max: number): number {
  return min + Math.floor(rng() * (max - min + 1));
}

function pick<T>(rng: Random, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)];
}

function shuffled<T>(rng: Random, items: readonly T[]): T[] {
  const result = items.slice();
  for (let i = result.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [result[i], result[j]] = [result[j], result[i]];
  }
  return result;
}

function sampleInOrder<T>(rng: Random, items: readonly T[], count: number): T[] {
  const chosen = new Set(
    shuffled(
      rng,
      items.map((_, i) => i),
    ).slice(0, count),
  );
  return items.filter((_, i) => chosen.has(i));
}

function cartesian<T>(lists: T[][]): T[][] {
  return lists.reduce<T[][]>((combos, list) => combos.flatMap((combo) => list.map((item) => [...combo, item])), [[]]);
}

function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function definite(arabicAdjective: string): string {
  return `ال${arabicAdjective}`;
}

/** Rounds to "charm" prices: 49, 129, 899 below 1,000 SAR; 2,499, 9,999 above. Returns halalas. */
function charmPrice(sar: number): number {
  const step = sar >= 1000 ? 100 : 10;
  return (Math.max(step, Math.round(sar / step) * step) - 1) * 100;
}

function flattenCategories(specs: CategorySpec[], parentKey: string | null = null): CategoryInput[] {
  return specs.flatMap((spec, position) => [
    { key: spec.key, parentKey, slug: slugify(spec.key), name: { ...spec.name }, description: { ...spec.description }, position },
    ...flattenCategories(spec.children ?? [], spec.key),
  ]);
}

function departmentByCategory(categories: CategoryInput[]): Map<string, string> {
  const parents = new Map(categories.map((category) => [category.key, category.parentKey]));
  const rootOf = (key: string): string => {
    const parent = parents.get(key);
    return parent ? rootOf(parent) : key;
  };
  return new Map(categories.map((category) => [category.key, rootOf(category.key)]));
}

function brandsByDepartment(): Map<string, BrandSpec[]> {
  const index = new Map<string, BrandSpec[]>();
  for (const brand of BRANDS) {
    for (const department of brand.departments) {
      index.set(department, [...(index.get(department) ?? []), brand]);
    }
  }
  return index;
}

function uniqueSlug(used: Map<string, number>, base: string): string {
  let count = used.get(base);
  if (count === undefined) {
    used.set(base, 1);
    return base;
  }
  let candidate: string;
  do {
    count += 1;
    candidate = `${base}-${count}`;
  } while (used.has(candidate));
  used.set(base, count);
  used.set(candidate, 1);
  return candidate;
}

function productName(rng: Random, type: ProductType, brand: BrandSpec): Bilingual {
  const adjective = pick(rng, type.adjectives);
  const material = type.materials.length > 0 && rng() < MATERIAL_RATE ? pick(rng, type.materials) : null;
  const edition = pick(rng, type.editions);
  const join = (parts: (string | undefined)[]): string => parts.filter(Boolean).join(' ');
  return {
    en: join([brand.name.en, adjective.en, material?.en, type.noun.en, edition.en]),
    ar: join([type.noun.ar, brand.name.ar, definite(adjective[type.gender]), material?.ar, edition.ar]),
  };
}

function productDescription(rng: Random, type: ProductType, name: Bilingual, department: string): Bilingual {
  const closer = pick(rng, DEPARTMENT_CLOSERS[department]);
  return {
    en: `${name.en} — ${type.blurb.en} ${closer.en}`,
    ar: `${name.ar} — ${type.blurb.ar} ${closer.ar}`,
  };
}

function variantCombinations(rng: Random, axes: OptionAxis[]): { axis: OptionAxis; value: OptionValue }[][] {
  let budget = randomInt(rng, 1, MAX_VARIANTS);
  const chosenPerAxis = axes.map((optionAxis, i) => {
    const limit = Math.min(optionAxis.values.length, budget);
    const count = i === axes.length - 1 ? limit : randomInt(rng, 1, limit);
    budget = Math.floor(budget / count);
    return sampleInOrder(rng, optionAxis.values, count).map((value) => ({ axis: optionAxis, value }));
  });
  return cartesian(chosenPerAxis);
}

function stockLevel(rng: Random): number {
  return rng() < OUT_OF_STOCK_RATE ? 0 : randomInt(rng, 1, MAX_STOCK);
}

function compareAtPriceFor(rng: Random, price: number): number {
  const candidate = charmPrice((price / 100) * (1.15 + rng() * 0.3));
  return candidate > price ? candidate : price + (price >= 100_000 ? 10_000 : 1_000);
}

function buildVariants(rng: Random, type: ProductType, brand: BrandSpec, productNumber: number): VariantInput[] {
  const [minSar, maxSar] = type.priceRange;
  const maxFactor = type.axes.reduce((product, optionAxis) => product * Math.max(...optionAxis.values.map((v) => v.factor)), 1);
  const baseSar = minSar + (maxSar / maxFactor - minSar) * rng() ** 1.6;
  const onSale = rng() < ON_SALE_RATE;
  const skuStem = `${brand.code}-${type.code}-${String(productNumber).padStart(6, '0')}`;

  return variantCombinations(rng, type.axes).map((combo) => {
    const factor = combo.reduce((product, { value }) => product * value.factor, 1);
    const price = Math.min(Math.max(charmPrice(baseSar * factor), minSar * 100), maxSar * 100);
    const codes = combo.map(({ value }) => value.code);
    return {
      sku: [skuStem, ...(codes.length > 0 ? codes : ['STD'])].join('-'),
      options: combo.map(({ axis: optionAxis, value }) => ({ name: { ...optionAxis.name }, value: { ...value.label } })),
      price,
      compareAtPrice: onSale ? compareAtPriceFor(rng, price) : null,
      stock: stockLevel(rng),
    };
  });
}

function assertProductCount(productCount: number): void {
  if (!Number.isSafeInteger(productCount) || productCount < 0) {
    throw new RangeError(`productCount must be a non-negative integer, got ${productCount}`);
  }
}

export function buildDemoCatalogue(options: { seed?: number; productCount?: number } = {}): DemoCatalogue {
  const seed = options.seed ?? DEFAULT_SEED;
  const productCount = options.productCount ?? DEFAULT_PRODUCT_COUNT;
  assertProductCount(productCount);

  const rng = seededRandom(seed);
  const categories = flattenCategories(CATEGORY_TREE);
  const departments = departmentByCategory(categories);
  const brandPool = brandsByDepartment();
  const usedSlugs = new Map<string, number>();
  const products: ProductInput[] = [];

  let cycle: ProductType[] = [];
  for (let i = 0; i < productCount; i++) {
    if (i % PRODUCT_TYPES.length === 0) cycle = shuffled(rng, PRODUCT_TYPES);
    const type = cycle[i % PRODUCT_TYPES.length];
    const department = departments.get(type.categoryKey)!;
    const brand = pick(rng, brandPool.get(department)!);
    const name = productName(rng, type, brand);
    products.push({
      slug: uniqueSlug(usedSlugs, slugify(name.en)),
      name,
      description: productDescription(rng, type, name, department),
      categoryKey: type.categoryKey,
      brandKey: brand.key,
      variants: buildVariants(rng, type, brand, i + 1),
    });
  }

  return {
    currency: 'SAR',
    categories,
    brands: BRANDS.map(({ key, name, description }) => ({ key, slug: slugify(key), name: { ...name }, description: { ...description } })),
    products,
  };
}
